// The bucketed GPU suffix sort (gpu/bwt/bucket_sort.cu, then
// tied_doubling.cu as test_bwt_emulation.hpp runs it) on the CPU: the same
// steps with the same shared functions of gpu/bwt/bucket_keys.hpp
// (bucket_bin, plan_buckets, window_key, deepening_head, still_tied,
// same_prefix, tied entries, chunk_end) and prefix_doubling.hpp
// (initial_key, group_head),
// std::stable_sort in place of the device radix sorts and loops in place of
// the scans and scatters.
// Each result must equal bwt::suffix_array_cpu (libdivsufsort), whatever the
// bucket capacity. CI runs it; [gpu][bwt] checks the kernels themselves.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <random>
#include <vector>

#include "bwt/suffix_array.hpp"
#include "gpu/bwt/bucket_keys.hpp"
#include "test_bwt_bucket_steps.hpp"
#include "test_bwt_emulation.hpp"
#include "test_bwt_support.hpp"
#include "test_data.hpp"

namespace gb = seqfuse::gpu::bwt;
using namespace seqfuse::bwt::test;  // Text, random_text, periodic_text, the doubling

namespace {

struct Emulation {
  std::vector<std::uint64_t> sa;
  std::size_t buckets = 0;
  int rounds = 0;           // window rounds over all buckets
  int doubling_rounds = 0;  // rounds of the tied list
  std::uint64_t tied = 0;   // suffixes the buckets left tied
};

// The text's count of suffixes per bin (2^24 bins: counting them is most
// of what a short text's emulation costs, so a caller may keep them).
std::vector<std::uint64_t> count_bins(const Text& text) {
  const std::uint64_t n = text.size();
  std::vector<std::uint64_t> bins(gb::kBins, 0);
  for (std::uint64_t i = 0; i <= n; ++i) ++bins[gb::bucket_bin(text.data(), n, i)];
  return bins;
}

Emulation emulate(const Text& text, const std::vector<std::uint64_t>& bins,
                  std::uint64_t capacity) {
  const std::uint64_t n = text.size();
  const std::vector<gb::Bucket> buckets = gb::plan_buckets(bins, capacity);
  REQUIRE_FALSE(buckets.empty());
  Emulation out;
  out.buckets = buckets.size();
  std::vector<std::uint64_t> rank(n + 1, ~std::uint64_t{0}), tied;
  std::uint64_t row = 0;
  for (const gb::Bucket& bucket : buckets) {
    REQUIRE(bucket.first_row == row);
    REQUIRE(bucket.suffixes <= capacity);
    rank_bucket(text, sort_bucket(text, bucket, out.rounds), bucket.first_row, rank, tied);
    row += bucket.suffixes;
  }
  out.tied = tied.size();
  out.doubling_rounds = double_tied(rank, std::move(tied), gb::kBucketDepth, capacity);
  out.sa = suffix_array_from_ranks(rank);
  return out;
}

Emulation emulate(const Text& text, std::uint64_t capacity) {
  return emulate(text, count_bins(text), capacity);
}

void check(const Text& text, std::initializer_list<std::uint64_t> capacities) {
  const std::vector<std::uint64_t> bins = count_bins(text);
  const auto expected = seqfuse::bwt::suffix_array_cpu(text);
  for (const std::uint64_t capacity : capacities) {
    INFO("length " << text.size() << ", capacity " << capacity);
    CHECK(same(emulate(text, bins, capacity).sa, expected));
  }
}

void check(const Text& text, std::uint64_t capacity) {
  check(text, {capacity});
}

}  // namespace

TEST_CASE("bucketed suffix sort, emulated, equals libdivsufsort", "[bwt]") {
  std::mt19937_64 rng(seqfuse::test::test_seed());
  SECTION("random texts of edge lengths, buckets of every size") {
    for (std::size_t n : {0, 1, 2, 7, 8, 9, 20, 21, 22, 42, 43, 1000})
      check(random_text(rng, n), {std::uint64_t{1} << 40, std::uint64_t{64}, std::uint64_t{3}});
  }
  SECTION("many buckets, each a handful of suffixes") {
    const Text text = random_text(rng, 20000);
    check(text, 40);
    CHECK(emulate(text, 40).buckets > 500);
  }
  SECTION("one letter repeated: one bin holds almost every suffix") {
    for (std::uint8_t c = 0; c < 4; ++c) check(Text(300, c), 300);
    // Three windows (84 characters), then doubling to 168 and 336.
    const Emulation e = emulate(Text(300, 0), 300);
    CHECK(e.rounds == gb::kBucketRounds);
    CHECK(e.doubling_rounds == 2);
  }
  SECTION("periodic texts and a long repeat") {
    for (std::size_t period : {2, 3, 7, 21, 22}) check(periodic_text(rng, period, 700), 700);
    Text t = random_text(rng, 5000);
    std::copy(t.begin() + 10, t.begin() + 10 + 1500, t.end() - 1507);
    check(t, {200, 1600});  // 1600: chunks of whole groups, several a round
  }
  SECTION("a repeat of 100 kb: doubling rounds, not windows") {
    Text t = random_text(rng, 250000);
    std::copy(t.begin() + 5, t.begin() + 5 + 100000, t.end() - 100003);
    check(t, 1u << 20);
    const Emulation e = emulate(t, 1u << 20);
    CHECK(e.tied > 100000);
    CHECK(e.doubling_rounds <= 11);  // log2(100000 / 84) + 1
  }
}

TEST_CASE("bucket plans keep bins whole and refuse a bin over capacity", "[bwt]") {
  const std::vector<std::uint64_t> bins = {3, 0, 2, 2, 0, 5, 1};
  const auto buckets = gb::plan_buckets(bins, 5);
  struct Expected {
    std::uint32_t first_bin, end_bin;
    std::uint64_t first_row, suffixes;
  };
  const Expected expected[] = {{0, 3, 0, 5}, {3, 5, 5, 2}, {5, 6, 7, 5}, {6, 7, 12, 1}};
  REQUIRE(buckets.size() == 4);
  for (std::size_t b = 0; b < 4; ++b) {
    INFO("bucket " << b);
    CHECK(buckets[b].first_bin == expected[b].first_bin);
    CHECK(buckets[b].end_bin == expected[b].end_bin);
    CHECK(buckets[b].first_row == expected[b].first_row);
    CHECK(buckets[b].suffixes == expected[b].suffixes);
  }
  CHECK(gb::plan_buckets(bins, 4).empty());  // bin 5 holds 5 suffixes
}
