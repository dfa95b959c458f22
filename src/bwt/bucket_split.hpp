// How `seqfuse bwt --device gpu:0,1,...` shares the bucketed suffix sort
// between its GPU workers (gpu_multi_sort.cpp runs it; host code, so the CPU
// tests plan with fake devices).
//
// The buckets (gpu/bwt/bucket_keys.hpp) are independent until their ranks
// are written: each holds a contiguous range of suffix-array rows and is
// sorted from the text alone. Every worker holds the whole text and sorts
// the buckets it is given; the ranks go into one array on the first
// device, which then runs the doubling over the tied suffixes and the rows
// out, exactly as the one-GPU sort does. So the split only decides who sorts
// which bucket, never what a row holds: the output is the same whatever the
// split.
//
// Buckets go largest first, each to the worker with the fewest suffixes so
// far (longest-processing-time first). Contiguous ranges would not help (the
// ranks land in one array whatever the order) and balance worse: bucket
// sizes vary with the text (a bin of repeats is large). So that one large
// bucket does not hold the run, the buckets are made small enough that
// every worker gets several.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/bwt/bucket_keys.hpp"

namespace seqfuse::bwt {

// Buckets per worker aimed at, for balance: the last bucket a worker takes
// is then at most about a quarter of its share.
inline constexpr std::uint64_t kBucketsPerWorker = 4;

struct BucketSplit {
  std::uint64_t capacity = 0;             // suffixes a bucket may hold
  std::vector<gpu::bwt::Bucket> buckets;  // in row order
  // per_worker[w]: the indexes into `buckets` worker w sorts, in the order
  // it sorts them (largest first).
  std::vector<std::vector<std::size_t>> per_worker;
  // The suffixes each worker sorts (its load) and the largest bucket it
  // takes (the device space it needs).
  std::vector<std::uint64_t> load;
  std::vector<std::uint64_t> largest;
};

// The bucket capacity for `workers` workers: what a device holds
// (`device_capacity`, the smallest over the workers' devices) but no more
// than a kBucketsPerWorker-th of a worker's share, and no less than the
// largest bin (bins are never split).
[[nodiscard]] std::uint64_t split_capacity(const std::vector<std::uint64_t>& bin_counts,
                                           std::uint64_t device_capacity, std::size_t workers);

// Buckets for the bins at split_capacity, shared between `workers` workers
// largest first. Empty `buckets` when one bin holds more suffixes than
// `device_capacity` (as plan_buckets refuses it).
[[nodiscard]] BucketSplit split_buckets(const std::vector<std::uint64_t>& bin_counts,
                                        std::uint64_t device_capacity, std::size_t workers);

// The largest-first assignment alone (split_buckets uses it): worker lists
// of bucket indexes; ties go to the lower bucket index and the lower worker.
[[nodiscard]] std::vector<std::vector<std::size_t>> assign_largest_first(
    const std::vector<gpu::bwt::Bucket>& buckets, std::size_t workers);

}  // namespace seqfuse::bwt
