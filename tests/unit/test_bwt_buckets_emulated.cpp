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
#include <numeric>
#include <random>
#include <vector>

#include "bwt/suffix_array.hpp"
#include "gpu/bwt/bucket_keys.hpp"
#include "test_bwt_emulation.hpp"
#include "test_bwt_support.hpp"
#include "test_data.hpp"

namespace gb = seqfuse::gpu::bwt;
using namespace seqfuse::bwt::test;  // Text, random_text, periodic_text, the doubling

namespace {

// The tied suffixes' slots and labels from the heads of `count` sorted
// entries (compact_tied_kernel); slots_in empty means slot t.
void next_tied(const std::vector<std::uint32_t>& heads, const std::vector<std::uint32_t>& slots_in,
               std::vector<std::uint32_t>& slots, std::vector<std::uint32_t>& labels) {
  const std::uint64_t count = heads.size();
  std::vector<std::uint32_t> next_slots, next_labels;
  std::uint32_t heads_before = 0;
  for (std::uint64_t t = 0; t < count; ++t) {
    if (gb::still_tied(heads.data(), count, t) != 0) {
      next_slots.push_back(slots_in.empty() ? static_cast<std::uint32_t>(t) : slots_in[t]);
      next_labels.push_back(heads_before + heads[t] - 1u);
    }
    heads_before += heads[t];
  }
  slots.swap(next_slots);
  labels.swap(next_labels);
}

// One bucket's sorted positions, as BucketSorter::sort computes them.
std::vector<std::uint64_t> sort_bucket(const Text& text, const gb::Bucket& bucket, int& rounds) {
  const std::uint64_t n = text.size();
  std::vector<std::uint64_t> positions, keys;
  for (std::uint64_t i = 0; i <= n; ++i) {
    const std::uint32_t bin = gb::bucket_bin(text.data(), n, i);
    if (bin >= bucket.first_bin && bin < bucket.end_bin) {
      positions.push_back(i);
      keys.push_back(gb::initial_key(text.data(), n, i));
    }
  }
  REQUIRE(positions.size() == bucket.suffixes);
  std::vector<std::uint64_t> order(positions.size()), sorted_keys(positions.size());
  const auto first = stable_order(keys);
  for (std::size_t t = 0; t < first.size(); ++t) {
    order[t] = positions[first[t]];
    sorted_keys[t] = keys[first[t]];
  }
  std::vector<std::uint32_t> heads(order.size()), slots, labels;
  for (std::size_t t = 0; t < order.size(); ++t) heads[t] = gb::group_head(sorted_keys.data(), t);
  next_tied(heads, {}, slots, labels);

  int bucket_rounds = 0;
  for (std::uint64_t depth = gb::kInitialChars; !slots.empty() && bucket_rounds < gb::kBucketRounds;
       depth += gb::kInitialChars, ++bucket_rounds) {
    ++rounds;
    const std::size_t count = slots.size();
    std::vector<std::uint64_t> tied_positions(count), windows(count);
    for (std::size_t x = 0; x < count; ++x) {
      tied_positions[x] = order[slots[x]];
      windows[x] = gb::window_key(text.data(), n, tied_positions[x], depth);
    }
    // By window, then stably by label: (group, window).
    const auto by_window = stable_order(windows);
    std::vector<std::uint32_t> window_labels(count);
    for (std::size_t t = 0; t < count; ++t) window_labels[t] = labels[by_window[t]];
    const auto by_label = stable_order(window_labels);
    std::vector<std::uint32_t> indices(count), sorted_labels(count);
    for (std::size_t t = 0; t < count; ++t) {
      indices[t] = by_window[by_label[t]];
      sorted_labels[t] = window_labels[by_label[t]];
    }
    std::vector<std::uint64_t> keys_in_order(count);
    for (std::size_t t = 0; t < count; ++t) {
      const std::uint64_t i = tied_positions[indices[t]];
      order[slots[t]] = i;
      keys_in_order[t] = gb::window_key(text.data(), n, i, depth);
    }
    std::vector<std::uint32_t> round_heads(count);
    for (std::size_t t = 0; t < count; ++t)
      round_heads[t] = gb::deepening_head(sorted_labels.data(), keys_in_order.data(), t);
    const std::vector<std::uint32_t> slots_in = slots;
    next_tied(round_heads, slots_in, slots, labels);
  }
  return order;
}

struct Emulation {
  std::vector<std::uint64_t> sa;
  std::size_t buckets = 0;
  int rounds = 0;           // window rounds over all buckets
  int doubling_rounds = 0;  // rounds of the tied list
  std::uint64_t tied = 0;   // suffixes the buckets left tied
};

// A bucket's ranks and tied entries from its sorted rows (write_ranks).
void rank_bucket(const Text& text, const std::vector<std::uint64_t>& order, std::uint64_t first_row,
                 std::vector<std::uint64_t>& rank, std::vector<std::uint64_t>& tied) {
  const std::uint64_t n = text.size();
  std::vector<std::uint32_t> heads(order.size());
  for (std::size_t t = 0; t < order.size(); ++t)
    heads[t] = t == 0 || !gb::same_prefix(text.data(), n, order[t - 1], order[t], gb::kBucketDepth);
  std::uint64_t start = 0;
  for (std::size_t t = 0; t < order.size(); ++t) {
    if (heads[t] != 0) start = t;
    rank[order[t]] = first_row + start;
    if (gb::still_tied(heads.data(), order.size(), t) != 0)
      tied.push_back(gb::tied_entry(order[t], heads[t] != 0));
  }
}

Emulation emulate(const Text& text, std::uint64_t capacity) {
  const std::uint64_t n = text.size();
  std::vector<std::uint64_t> bins(gb::kBins, 0);
  for (std::uint64_t i = 0; i <= n; ++i) ++bins[gb::bucket_bin(text.data(), n, i)];
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

void check(const Text& text, std::uint64_t capacity) {
  INFO("length " << text.size() << ", capacity " << capacity);
  const Emulation e = emulate(text, capacity);
  CHECK(same(e.sa, seqfuse::bwt::suffix_array_cpu(text)));
}

}  // namespace

TEST_CASE("bucketed suffix sort, emulated, equals libdivsufsort", "[bwt]") {
  std::mt19937_64 rng(seqfuse::test::test_seed());
  SECTION("random texts of edge lengths, buckets of every size") {
    for (std::size_t n : {0, 1, 2, 7, 8, 9, 20, 21, 22, 42, 43, 1000})
      for (std::uint64_t capacity : {std::uint64_t{1} << 40, std::uint64_t{64}, std::uint64_t{3}})
        check(random_text(rng, n), capacity);
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
    check(t, 200);
    check(t, 1600);  // chunks of whole groups, several a round
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
