// The device suffix sort (gpu/bwt) against bwt::suffix_array_cpu
// (libdivsufsort) on fresh texts each run, in both of its paths: the
// one-pass prefix doubling and the bucketed sort (forced with small
// buckets: window rounds, then doubling over the tied suffixes). Edge lengths, one letter repeated,
// periodic texts, a long repeat and a random 10 M-code text; every output is poisoned before each
// call. Then the refusals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../unit/test_bwt_support.hpp"
#include "bwt/sorted_suffixes.hpp"
#include "bwt/suffix_array.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/error.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace gpu = seqfuse::gpu;
using namespace seqfuse::bwt::test;  // Text, random_text, periodic_text

namespace {

constexpr std::uint8_t kPoisonCode = 0xAB;
constexpr std::uint64_t kPoison = 0xABABABABABABABABull;

struct DeviceRows {
  std::vector<std::uint8_t> bwt;
  std::vector<std::uint64_t> samples;
};

DeviceRows poisoned(std::size_t n, std::uint32_t interval) {
  DeviceRows rows{std::vector<std::uint8_t>(n + 1, kPoisonCode),
                  std::vector<std::uint64_t>(n / interval + 1, kPoison)};
  return rows;
}

// bucket_suffixes 0: the one-pass sort (the texts here fit the device).
void check(const Text& text, std::uint32_t interval, std::uint64_t bucket_suffixes = 0) {
  INFO("length " << text.size() << ", interval " << interval << ", buckets of " << bucket_suffixes);
  DeviceRows rows = poisoned(text.size(), interval);
  gpu::bwt::SortPlan plan;
  plan.bucket_suffixes = bucket_suffixes;
  // Three host threads: the staged copy-out splits its blocks among them.
  REQUIRE(gpu::bwt::sort_suffixes(text, {rows.bwt, rows.samples, interval, 3}, plan) ==
          gpu::Status::kSuccess);
  const auto expected =
      seqfuse::bwt::sorted_from_suffix_array(text, seqfuse::bwt::suffix_array_cpu(text), interval);
  const auto bad_row = std::mismatch(rows.bwt.begin(), rows.bwt.end(), expected.bwt.begin());
  INFO("first BWT difference at row " << (bad_row.first - rows.bwt.begin()));
  CHECK(std::ranges::equal(rows.bwt, expected.bwt));
  const auto bad_sample =
      std::mismatch(rows.samples.begin(), rows.samples.end(), expected.samples.begin());
  INFO("first sample difference at " << (bad_sample.first - rows.samples.begin()));
  CHECK(std::ranges::equal(rows.samples, expected.samples));
}

// Both paths, at the raw format's interval and bwa's.
void check_both(const Text& text, std::uint64_t bucket_suffixes) {
  for (std::uint32_t interval : {1u, 32u}) {
    check(text, interval);
    check(text, interval, bucket_suffixes);
  }
}

}  // namespace

TEST_CASE("GPU sorted suffixes equal the CPU's, in one pass and in buckets", "[gpu][bwt]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(std::random_device{}());
  SECTION("random texts of edge lengths") {
    for (std::size_t n : {0, 1, 2, 7, 8, 9, 20, 21, 22, 42, 43, 1000})
      for (int rep = 0; rep < 3; ++rep) check_both(random_text(rng, n), 5);
  }
  SECTION("one letter repeated") {
    for (std::uint8_t c = 0; c < 4; ++c) check_both(Text(5000, c), 5000);
  }
  SECTION("periodic texts") {
    for (std::size_t period : {2, 3, 7, 21, 22})
      for (std::size_t n : {period, 2 * period + 1, std::size_t{500}, std::size_t{30001}})
        check_both(periodic_text(rng, period, n), n + 1);
  }
  SECTION("a long repeat") {
    Text t = random_text(rng, 200000);
    std::copy(t.begin() + 10, t.begin() + 10 + 50000, t.end() - 50007);
    check_both(t, 20000);
  }
  SECTION("a repeat of 1 M codes across buckets: doubling over the tied list") {
    Text t = random_text(rng, 3'000'000);
    std::copy(t.begin() + 7, t.begin() + 7 + 1'000'000, t.end() - 1'000'011);
    check(t, 32, 400'000);
    check(t, 1, 400'000);
  }
  SECTION("a random 10 M-code text") {
    const Text t = random_text(rng, 10'000'000);
    check(t, 32);
    check(t, 1, 1'500'000);
  }
}

// The forward strand packed as bwa's .pac, sorted on the device with or
// without its reverse complement, against the CPU's array of the codes.
void check_packed(const Text& forward, bool both, std::uint32_t interval,
                  std::uint64_t bucket_suffixes = 0) {
  INFO("packed, length " << forward.size() << (both ? ", both strands" : ", forward only")
                         << ", interval " << interval << ", buckets of " << bucket_suffixes);
  std::vector<std::uint8_t> packed((forward.size() + 3) / 4 + 2, 0);
  for (std::size_t i = 0; i < forward.size(); ++i)
    packed[i / 4] = static_cast<std::uint8_t>(packed[i / 4] | forward[i] << (6 - 2 * (i % 4)));
  Text text = forward;
  if (both)
    for (std::size_t i = forward.size(); i-- > 0;) text.push_back(3 - forward[i]);
  DeviceRows rows = poisoned(text.size(), interval);
  gpu::bwt::SortPlan plan;
  plan.bucket_suffixes = bucket_suffixes;
  REQUIRE(gpu::bwt::sort_suffixes(gpu::bwt::PackedCodes{packed, forward.size(), both},
                                  {rows.bwt, rows.samples, interval, 2},
                                  plan) == gpu::Status::kSuccess);
  const auto expected =
      seqfuse::bwt::sorted_from_suffix_array(text, seqfuse::bwt::suffix_array_cpu(text), interval);
  CHECK(std::ranges::equal(rows.bwt, expected.bwt));
  CHECK(std::ranges::equal(rows.samples, expected.samples));
}

TEST_CASE("GPU suffix sort of a packed strand equals the CPU's of its codes", "[gpu][bwt]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 21, 22, 1001})
    for (bool both : {true, false}) check_packed(random_text(rng, n), both, 1);
  const Text genome = random_text(rng, 300'000);
  check_packed(genome, true, 32);
  check_packed(genome, true, 32, 70'000);
  check_packed(genome, false, 4);
  // Too few bytes for the length.
  std::vector<std::uint8_t> packed(2, 0);
  DeviceRows rows = poisoned(9, 1);
  CHECK(gpu::bwt::sort_suffixes(gpu::bwt::PackedCodes{packed, 9, false},
                                {rows.bwt, rows.samples, 1}) == gpu::Status::kInvalidSize);
}

TEST_CASE("GPU suffix sort refuses what it cannot sort", "[gpu][bwt]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(11);
  Text text = random_text(rng, 100);
  DeviceRows rows = poisoned(text.size(), 32);
  auto sort = [&](std::uint32_t interval, std::uint64_t buckets = 0) {
    gpu::bwt::SortPlan plan;
    plan.bucket_suffixes = buckets;
    return gpu::bwt::sort_suffixes(text, {rows.bwt, rows.samples, interval}, plan);
  };
  CHECK(sort(16) == gpu::Status::kInvalidSize);  // samples sized for 32
  CHECK(sort(31) == gpu::Status::kInvalidSize);  // not a power of two
  rows.bwt.pop_back();
  CHECK(sort(32) == gpu::Status::kInvalidSize);
  rows = poisoned(text.size(), 32);

  text[57] = 4;
  CHECK(sort(32) == gpu::Status::kInvalidArgument);
  CHECK(std::all_of(rows.bwt.begin(), rows.bwt.end(), [](auto c) { return c == kPoisonCode; }));
  text[57] = 0;

  // A bin of 8 letters shared by more suffixes than a bucket holds.
  text.assign(100, 0);
  CHECK_THROWS_AS(sort(32, 50), gpu::OutOfMemory);

  CHECK(gpu::bwt::one_pass_device_bytes(10'000'000) > 280'000'000);
}
