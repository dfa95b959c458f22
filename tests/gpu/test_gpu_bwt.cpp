// The device suffix sort (gpu/bwt/suffix_sort.cu) against bwt::suffix_array_cpu
// (libdivsufsort) on fresh texts each run: edge lengths, one letter repeated
// (many doubling rounds), periodic texts, a long repeat and a random
// 10 M-code text; sa is poisoned before each call. Then the refusals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../unit/test_bwt_support.hpp"
#include "bwt/suffix_array.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace gpu = seqfuse::gpu;
using namespace seqfuse::bwt::test;  // Text, random_text, periodic_text

namespace {

constexpr std::uint64_t kPoison = 0xABABABABABABABABull;

std::vector<std::uint64_t> poisoned(std::size_t entries) {
  std::vector<std::uint64_t> sa(entries);
  std::memset(sa.data(), 0xAB, sa.size() * sizeof(std::uint64_t));
  return sa;
}

void check(const Text& text) {
  INFO("length " << text.size());
  auto sa = poisoned(text.size() + 1);
  REQUIRE(gpu::bwt::suffix_array(text, sa) == gpu::Status::kSuccess);
  const auto expected = seqfuse::bwt::suffix_array_cpu(text);
  REQUIRE(sa.size() == expected.size());
  const auto first_bad = std::mismatch(sa.begin(), sa.end(), expected.begin());
  INFO("first difference at row " << (first_bad.first - sa.begin()));
  CHECK(sa == expected);
}

}  // namespace

TEST_CASE("GPU suffix array equals the CPU one", "[gpu][bwt]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(std::random_device{}());
  SECTION("random texts of edge lengths") {
    for (std::size_t n : {0, 1, 2, 20, 21, 22, 42, 43, 1000})
      for (int rep = 0; rep < 3; ++rep) check(random_text(rng, n));
  }
  SECTION("one letter repeated") {
    for (std::uint8_t c = 0; c < 4; ++c) check(Text(5000, c));
  }
  SECTION("periodic texts") {
    for (std::size_t period : {2, 3, 7, 21, 22})
      for (std::size_t n : {period, 2 * period + 1, std::size_t{500}, std::size_t{30001}})
        check(periodic_text(rng, period, n));
  }
  SECTION("a long repeat") {
    Text t = random_text(rng, 200000);
    std::copy(t.begin() + 10, t.begin() + 10 + 50000, t.end() - 50007);
    check(t);
  }
  SECTION("a random 10 M-code text") {
    check(random_text(rng, 10'000'000));
  }
}

TEST_CASE("GPU suffix array refuses what it cannot sort", "[gpu][bwt]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(11);
  Text text = random_text(rng, 100);

  auto short_sa = poisoned(text.size());
  CHECK(gpu::bwt::suffix_array(text, short_sa) == gpu::Status::kInvalidSize);
  auto long_sa = poisoned(text.size() + 2);
  CHECK(gpu::bwt::suffix_array(text, long_sa) == gpu::Status::kInvalidSize);
  auto none = poisoned(0);
  CHECK(gpu::bwt::suffix_array({}, none) == gpu::Status::kInvalidSize);

  text[57] = 4;
  auto sa = poisoned(text.size() + 1);
  CHECK(gpu::bwt::suffix_array(text, sa) == gpu::Status::kInvalidArgument);
  CHECK(std::all_of(sa.begin(), sa.end(), [](std::uint64_t x) { return x == kPoison; }));

  CHECK(gpu::bwt::suffix_array_device_bytes(10'000'000) > 280'000'000);
}
