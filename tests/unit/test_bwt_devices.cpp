// `seqfuse bwt --device gpu:0,1,...` on the CPU: the bucket split between
// workers (src/bwt/bucket_split.*) and the assembly of their ranks into one
// suffix array, run through run_device_workers with fake devices and the
// bucket steps emulated (test_bwt_bucket_steps.hpp), as
// src/bwt/gpu_multi_sort.cpp runs them on GPUs: every worker ranks its
// buckets into one array and claims a block of the one tied list, then the
// doubling runs once over it. Each result must equal
// bwt::suffix_array_cpu (libdivsufsort) whatever the workers and the order
// they finish in. [gpu][bwt] runs the GPU path itself.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "bwt/bucket_split.hpp"
#include "bwt/suffix_array.hpp"
#include "core/device_workers.hpp"
#include "gpu/bwt/bucket_keys.hpp"
#include "test_bwt_bucket_steps.hpp"
#include "test_bwt_emulation.hpp"
#include "test_bwt_support.hpp"
#include "test_data.hpp"

namespace gb = seqfuse::gpu::bwt;
using seqfuse::bwt::BucketSplit;
using seqfuse::bwt::split_buckets;
using namespace seqfuse::bwt::test;  // Text, the bucket steps, the doubling

namespace {

std::vector<std::uint64_t> bin_counts(const Text& text) {
  const std::uint64_t n = text.size();
  std::vector<std::uint64_t> bins(gb::kBins, 0);
  for (std::uint64_t i = 0; i <= n; ++i) ++bins[gb::bucket_bin(text.data(), n, i)];
  return bins;
}

// Checks a split: every bucket once, bins whole and in row order, loads as
// the lists say, and the largest-first bound on the imbalance.
void check_split(const BucketSplit& split, const std::vector<std::uint64_t>& bins,
                 std::size_t workers) {
  REQUIRE(split.per_worker.size() == workers);
  std::vector<int> seen(split.buckets.size(), 0);
  std::uint64_t largest_bucket = 0;
  for (std::size_t w = 0; w < workers; ++w) {
    std::uint64_t load = 0, previous = ~std::uint64_t{0};
    for (const std::size_t b : split.per_worker[w]) {
      REQUIRE(b < split.buckets.size());
      ++seen[b];
      load += split.buckets[b].suffixes;
      CHECK(split.buckets[b].suffixes <= previous);  // largest first
      previous = split.buckets[b].suffixes;
    }
    CHECK(load == split.load[w]);
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
  std::uint64_t row = 0;
  std::uint32_t bin = 0;
  for (const gb::Bucket& b : split.buckets) {
    CHECK(b.first_row == row);
    CHECK(b.first_bin == bin);
    CHECK(b.suffixes <= split.capacity);
    std::uint64_t in_bins = 0;
    for (std::uint32_t k = b.first_bin; k < b.end_bin; ++k) in_bins += bins[k];
    CHECK(in_bins == b.suffixes);
    row += b.suffixes;
    bin = b.end_bin;
    largest_bucket = std::max(largest_bucket, b.suffixes);
  }
  CHECK(row == std::accumulate(bins.begin(), bins.end(), std::uint64_t{0}));
  const auto [low, high] = std::minmax_element(split.load.begin(), split.load.end());
  CHECK(*high - *low <= largest_bucket);
}

// What one worker does for one bucket (BucketWorker::sort): the ranks into
// the shared array, the tied suffixes into a block it claims in the list.
void sort_and_rank(const Text& text, const gb::Bucket& bucket, std::vector<std::uint64_t>& rank,
                   std::vector<std::uint64_t>& list, std::atomic<std::uint64_t>& count) {
  int rounds = 0;
  std::vector<std::uint64_t> tied;
  rank_bucket(text, sort_bucket(text, bucket, rounds), bucket.first_row, rank, tied);
  const std::uint64_t at = count.fetch_add(tied.size());
  std::copy(tied.begin(), tied.end(), list.begin() + static_cast<std::ptrdiff_t>(at));
}

enum class Order { kThreads, kWorkersReversed };

// The multi-worker sort, emulated: `devices` as a --device list gives them,
// on the split of the text's bins over as many workers.
std::vector<std::uint64_t> emulate_devices(const Text& text, const BucketSplit& split,
                                           const std::vector<int>& devices, Order order) {
  const std::uint64_t n = text.size();
  std::vector<std::uint64_t> rank(n + 1, ~std::uint64_t{0}), list(n + 1);
  std::atomic<std::uint64_t> count{0};
  if (order == Order::kThreads) {
    seqfuse::run_device_workers(
        devices,
        [&](std::stop_token, std::size_t w, int) {
          for (const std::size_t b : split.per_worker[w])
            sort_and_rank(text, split.buckets[b], rank, list, count);
        },
        [](int) {});
  } else {  // the last worker's blocks first: the list's order of groups differs
    for (std::size_t w = devices.size(); w-- > 0;)
      for (const std::size_t b : split.per_worker[w])
        sort_and_rank(text, split.buckets[b], rank, list, count);
  }
  list.resize(count.load());
  REQUIRE(std::none_of(rank.begin(), rank.end(), [](auto r) { return r == ~std::uint64_t{0}; }));
  (void)double_tied(rank, std::move(list), gb::kBucketDepth, split.capacity);
  return suffix_array_from_ranks(rank);
}

// Every worker list and order against libdivsufsort. The bins (2^24 of
// them) are counted once and split once per worker count: those scans,
// not the sorts, are what these small texts cost. No split when a bin
// holds more suffixes than `capacity` (split_buckets refuses: the run then
// sorts on one device), which a random text can do at the smallest
// capacities.
void check_devices(const Text& text, std::uint64_t capacity) {
  const auto expected = seqfuse::bwt::suffix_array_cpu(text);
  const std::vector<std::uint64_t> bins = bin_counts(text);
  const std::vector<std::vector<std::vector<int>>> lists_by_count = {
      {{0}}, {{0, 1}}, {{0, 1, 2}, {0, 0, 0}}};
  for (const auto& lists : lists_by_count) {
    const std::size_t workers = lists.front().size();
    INFO("length " << text.size() << ", capacity " << capacity << ", " << workers << " workers");
    const BucketSplit split = split_buckets(bins, capacity, workers);
    if (capacity > text.size()) REQUIRE_FALSE(split.buckets.empty());  // every bin fits
    if (split.buckets.empty()) {
      REQUIRE(*std::max_element(bins.begin(), bins.end()) > capacity);
      continue;
    }
    check_split(split, bins, workers);
    for (const std::vector<int>& devices : lists)
      for (const Order order : {Order::kThreads, Order::kWorkersReversed}) {
        INFO("order " << static_cast<int>(order));
        CHECK(same(emulate_devices(text, split, devices, order), expected));
      }
  }
}

}  // namespace

TEST_CASE("bwt bucket split: largest first, each to the least loaded worker", "[bwt][devices]") {
  // Buckets of 5, 2, 5, 1, 4, 3 suffixes over two workers: 5 (w0), 5 (w1),
  // 4 (w0: 9), 3 (w1: 8), 2 (w1: 10), 1 (w0: 10).
  std::vector<gb::Bucket> buckets;
  std::uint64_t row = 0;
  std::uint32_t bin = 0;
  for (const std::uint64_t size : {5, 2, 5, 1, 4, 3}) {
    buckets.push_back({bin, bin + 1, row, size});
    row += size;
    ++bin;
  }
  const auto two = seqfuse::bwt::assign_largest_first(buckets, 2);
  CHECK(two == std::vector<std::vector<std::size_t>>{{0, 4, 3}, {2, 5, 1}});
  const auto one = seqfuse::bwt::assign_largest_first(buckets, 1);
  CHECK(one == std::vector<std::vector<std::size_t>>{{0, 2, 4, 5, 1, 3}});
  // More workers than buckets: the last ones get none.
  const auto eight = seqfuse::bwt::assign_largest_first(buckets, 8);
  CHECK(eight[6].empty());
  CHECK(eight[7].empty());
  CHECK(eight[0] == std::vector<std::size_t>{0});
  CHECK_THROWS(seqfuse::bwt::assign_largest_first(buckets, 0));
}

TEST_CASE("bwt bucket split: capacity gives each worker several buckets", "[bwt][devices]") {
  std::vector<std::uint64_t> bins(gb::kBins, 0);
  for (std::size_t k = 0; k < 1000; ++k) bins[k * 997] = 10;  // 10,000 suffixes
  // 4 workers: a share of 10,000 / 16 = 625 at most, below what the device holds.
  CHECK(seqfuse::bwt::split_capacity(bins, 1'000'000, 4) == 625);
  // The device's limit wins when smaller.
  CHECK(seqfuse::bwt::split_capacity(bins, 300, 4) == 300);
  // Never below the largest bin: bins are not split.
  bins[5] = 5000;
  CHECK(seqfuse::bwt::split_capacity(bins, 1'000'000, 4) == 5000);
  const BucketSplit split = split_buckets(bins, 1'000'000, 4);
  check_split(split, bins, 4);
  // One bin over the device's limit: no plan, as for one device.
  CHECK(split_buckets(bins, 4000, 4).buckets.empty());
  CHECK_THROWS(seqfuse::bwt::split_capacity(bins, 100, 0));
}

TEST_CASE("bwt bucket split: random bins keep the balance bound", "[bwt][devices]") {
  std::mt19937_64 rng(seqfuse::test::test_seed());
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::uint64_t> bins(gb::kBins, 0);
    const int filled = 1 + static_cast<int>(rng() % 3000);
    for (int k = 0; k < filled; ++k) bins[rng() % gb::kBins] += 1 + rng() % 500;
    const std::size_t workers = 1 + rng() % 8;
    const std::uint64_t device = 500 + rng() % 100000;
    const BucketSplit split = split_buckets(bins, device, workers);
    INFO("trial " << trial << ", " << workers << " workers, device capacity " << device);
    REQUIRE_FALSE(split.buckets.empty());
    check_split(split, bins, workers);
  }
}

TEST_CASE("bwt across workers, emulated, equals libdivsufsort", "[bwt][devices]") {
  std::mt19937_64 rng(seqfuse::test::test_seed());
  SECTION("edge lengths, 0 and 1 included") {
    for (std::size_t n : {0, 1, 2, 8, 21, 22, 43, 1000})
      for (std::uint64_t capacity : {std::uint64_t{1} << 40, std::uint64_t{64}, std::uint64_t{3}})
        check_devices(random_text(rng, n), capacity);
  }
  SECTION("random text, many buckets") {
    check_devices(random_text(rng, 20000), 200);
  }
  SECTION("one letter repeated: one bucket holds almost every suffix") {
    for (std::uint8_t c = 0; c < 4; ++c) check_devices(Text(300, c), 300);
    check_devices(Text(1, 0), 5);
  }
  SECTION("periodic texts and a long repeat across buckets") {
    for (std::size_t period : {2, 3, 7, 22}) check_devices(periodic_text(rng, period, 700), 700);
    Text t = random_text(rng, 6000);
    std::copy(t.begin() + 10, t.begin() + 10 + 2000, t.end() - 2007);
    check_devices(t, 300);
    check_devices(t, 2100);
  }
}
