#include "bwt/raw_files.hpp"

#include <algorithm>
#include <bit>
#include <ostream>
#include <string>
#include <vector>

#include "bwt/sorted_suffixes.hpp"
#include "core/error.hpp"

namespace seqfuse::bwt {
namespace {

// Output goes through a buffer of this many characters or entries, so a
// 6.2 G-base text needs no second full-size copy.
constexpr std::size_t kChunk = std::size_t{1} << 20;

void check_stream(const std::ostream& out, const char* what) {
  if (!out) throw Error(std::string("writing the ") + what + " failed");
}

}  // namespace

void write_raw_bwt_text(std::span<const std::uint8_t> bwt, std::ostream& out) {
  static constexpr char kLetters[5] = {'A', 'C', 'G', 'T', '$'};
  std::string buffer;
  buffer.reserve(kChunk);
  for (std::size_t row = 0; row < bwt.size(); ++row) {
    const std::uint8_t code = bwt[row];
    if (code > kSentinelCode) throw Error("the BWT holds an invalid code");
    buffer.push_back(kLetters[code]);
    if (buffer.size() == kChunk) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  check_stream(out, "BWT text");
}

void write_raw_sa(std::span<const std::uint64_t> sa, std::ostream& out) {
  if constexpr (std::endian::native == std::endian::little) {
    out.write(reinterpret_cast<const char*>(sa.data()),
              static_cast<std::streamsize>(sa.size_bytes()));
  } else {
    std::vector<char> buffer;
    buffer.reserve(kChunk * 8);
    for (std::size_t i = 0; i < sa.size(); ++i) {
      for (int b = 0; b < 8; ++b) buffer.push_back(static_cast<char>(sa[i] >> (8 * b)));
      if (buffer.size() == kChunk * 8 || i + 1 == sa.size()) {
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        buffer.clear();
      }
    }
  }
  check_stream(out, "suffix array");
}

void write_raw_json(std::uint64_t primary, std::uint64_t length, std::ostream& out) {
  // Few fixed fields, no strings from the user: written by hand rather than
  // linking a JSON library into seqfuse_bwt.
  out << "{\"format\": \"seqfuse-raw-bwt\", \"primary\": " << primary << ", \"length\": " << length
      << ", \"sentinel\": \"$\", \"alphabet\": \"ACGT\", \"sa_bytes\": 8, "
         "\"sa_byte_order\": \"little\"}\n";
  check_stream(out, "raw index JSON");
}

}  // namespace seqfuse::bwt
