// The safetensors reader on files made here: dtype conversion, and every
// header check (truncation, bad JSON, offsets outside the data area or out of
// step with dtype x shape, overlaps), each a seqfuse::Error naming the fault.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "models/float16.hpp"
#include "models/safetensors.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

std::string le64(std::uint64_t n) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
  return bytes;
}

// A safetensors file from a header text and a data area.
fs::path write_file(const TempDir& dir, const std::string& header, const std::string& data,
                    const std::string& name = "model.safetensors") {
  const fs::path path = dir.file(name);
  std::ofstream out(path, std::ios::binary);
  out << le64(header.size()) << header << data;
  return path;
}

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)};
}

std::string error_of(const fs::path& path) {
  try {
    SafetensorsFile file(path.string());
    return "no error";
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("safetensors: F32, F16 and BF16 tensors read as fp32", "[embed][safetensors]") {
  TempDir dir;
  const std::vector<float> f32 = {1.0f, -2.5f, 3.25e-3f};
  // F16: 1, -2, 65504 (largest), 2^-24 (smallest subnormal), +inf, -0.
  const std::vector<std::uint16_t> f16 = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x8000};
  // BF16: 1, -3, 1e-3 rounded down (0x3a83 = 2^-10 x 1.0234375).
  const std::vector<std::uint16_t> bf16 = {0x3f80, 0xc040, 0x3a83};
  const std::string data = bytes_of(f16) + bytes_of(f32) + bytes_of(bf16) + "x";  // unaligned F32
  const std::string header = R"({"__metadata__":{"format":"pt"},)"
                             R"("half":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},)"
                             R"("single":{"dtype":"F32","shape":[3],"data_offsets":[12,24]},)"
                             R"("brain":{"dtype":"BF16","shape":[3],"data_offsets":[24,30]},)"
                             R"("flag":{"dtype":"U8","shape":[],"data_offsets":[30,31]}})";
  const SafetensorsFile file(write_file(dir, header, data).string());

  REQUIRE(file.tensors().size() == 4);
  CHECK(file.metadata().at("format") == "pt");
  const TensorInfo* half = file.find("half");
  REQUIRE(half != nullptr);
  CHECK(half->describe() == "F16 [2, 3]");
  CHECK(file.find("missing") == nullptr);

  const auto h = file.to_float(*half);
  CHECK(h[0] == 1.0f);
  CHECK(h[1] == -2.0f);
  CHECK(h[2] == 65504.0f);
  CHECK(h[3] == std::ldexp(1.0f, -24));
  CHECK(std::isinf(h[4]));
  CHECK((h[5] == 0.0f && std::signbit(h[5])));
  CHECK(file.to_float(*file.find("single")) == f32);
  const auto b = file.to_float(*file.find("brain"));
  CHECK(b[0] == 1.0f);
  CHECK(b[1] == -3.0f);
  CHECK(b[2] == 0.00099945068359375f);
  CHECK(file.find("flag")->elements() == 1);  // a scalar: shape []
  CHECK_THROWS_WITH(file.to_float(*file.find("flag")),
                    Contains("'flag' is U8; only F32, F16 and BF16 weights are read"));
}

TEST_CASE("safetensors: f16 conversion agrees with the definition for every pattern",
          "[embed][safetensors]") {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    const float got = f16_to_float(h);
    if (exponent == 0x1f) {
      REQUIRE((mantissa ? std::isnan(got) : std::isinf(got)));
      continue;
    }
    const double want = exponent == 0
                            ? sign * mantissa * std::ldexp(1.0, -24)
                            : sign * (1.0 + mantissa / 1024.0) * std::ldexp(1.0, exponent - 15);
    REQUIRE(double(got) == want);
  }
}

TEST_CASE("safetensors: malformed files are one clear error each", "[embed][safetensors]") {
  TempDir dir;
  const std::string good_header = R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})";
  const std::string good_data(24, '\0');

  SECTION("missing") {
    CHECK_THAT(error_of(dir.file("none.safetensors")),
               Contains("cannot open") && Contains("No such file"));
  }
  SECTION("shorter than the header length") {
    const fs::path path = dir.file("tiny.safetensors");
    std::ofstream(path, std::ios::binary) << "abc";
    CHECK_THAT(error_of(path), Contains("is truncated or not a safetensors file: 3 bytes"));
  }
  SECTION("header length past the end") {
    const fs::path path = dir.file("long.safetensors");
    std::ofstream(path, std::ios::binary) << le64(1000) << "{}";
    CHECK_THAT(error_of(path), Contains("header length 1000 runs past the end of the file"));
  }
  SECTION("header cut short by truncation") {
    const fs::path path = write_file(dir, good_header, good_data);
    fs::resize_file(path, 8 + good_header.size() / 2);
    CHECK_THAT(error_of(path), Contains("runs past the end of the file"));
  }
  SECTION("data area cut short by truncation names the first tensor outside it") {
    const fs::path path = write_file(dir, good_header, good_data);
    fs::resize_file(path, fs::file_size(path) - 4);
    CHECK_THAT(error_of(path),
               Contains("tensor 'b': data_offsets [16, 24] run past the data area, which holds "
                        "20 bytes (truncated file?)"));
  }
  SECTION("not JSON") {
    CHECK_THAT(error_of(write_file(dir, "{\"a\": [1, 2", good_data)),
               Contains("the safetensors header is not valid JSON"));
    CHECK_THAT(error_of(write_file(dir, "[1, 2]", good_data)),
               Contains("header is not a JSON object"));
  }
  SECTION("offsets beyond the data area") {
    const std::string header = R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]}})";
    CHECK_THAT(error_of(write_file(dir, header, std::string(16, '\0'))),
               Contains("tensor 'a': data_offsets [8, 24] run past the data area"));
  }
  SECTION("offsets out of step with dtype x shape") {
    const std::string header = R"({"a":{"dtype":"BF16","shape":[3,2],"data_offsets":[0,16]}})";
    CHECK_THAT(
        error_of(write_file(dir, header, good_data)),
        Contains("tensor 'a': data_offsets [0, 16] span 16 bytes, but BF16 [3, 2] needs 12"));
  }
  SECTION("offsets reversed") {
    const std::string header = R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})";
    CHECK_THAT(error_of(write_file(dir, header, good_data)), Contains("end before they begin"));
  }
  SECTION("overlapping tensors") {
    const std::string header = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})";
    CHECK_THAT(error_of(write_file(dir, header, good_data)),
               Contains("tensors 'a' and 'b' overlap in the data area"));
  }
  SECTION("unknown dtype, negative or missing fields") {
    CHECK_THAT(error_of(write_file(dir, R"({"a":{"dtype":"F17","shape":[1],"data_offsets":[0,4]}})",
                                   good_data)),
               Contains("tensor 'a': unknown dtype 'F17'"));
    CHECK_THAT(error_of(write_file(
                   dir, R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", good_data)),
               Contains("shape holds a non-integer or negative"));
    CHECK_THAT(error_of(write_file(dir, R"({"a":{"dtype":"F32","shape":[1]}})", good_data)),
               Contains("tensor 'a' lacks dtype, shape or data_offsets"));
  }
  SECTION("a shape whose byte count overflows") {
    const std::string header =
        R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}})";
    CHECK_THAT(error_of(write_file(dir, header, good_data)), Contains("is too large"));
  }
}
