#include "bwt/bucket_split.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace seqfuse::bwt {

std::uint64_t split_capacity(const std::vector<std::uint64_t>& bin_counts,
                             std::uint64_t device_capacity, std::size_t workers) {
  if (workers == 0) throw Error("internal: a bucket split for 0 workers");
  std::uint64_t total = 0, largest_bin = 0;
  for (const std::uint64_t c : bin_counts) {
    total += c;
    largest_bin = std::max(largest_bin, c);
  }
  const std::uint64_t pieces = kBucketsPerWorker * workers;
  const std::uint64_t share = (total + pieces - 1) / pieces;
  return std::min(device_capacity, std::max({share, largest_bin, std::uint64_t{1}}));
}

std::vector<std::vector<std::size_t>> assign_largest_first(
    const std::vector<gpu::bwt::Bucket>& buckets, std::size_t workers) {
  if (workers == 0) throw Error("internal: a bucket split for 0 workers");
  std::vector<std::size_t> order(buckets.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return buckets[a].suffixes > buckets[b].suffixes;
  });
  std::vector<std::vector<std::size_t>> per_worker(workers);
  std::vector<std::uint64_t> load(workers, 0);
  for (const std::size_t b : order) {
    // The least loaded worker, the first of them on a tie.
    const auto w =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    per_worker[w].push_back(b);
    load[w] += buckets[b].suffixes;
  }
  return per_worker;
}

BucketSplit split_buckets(const std::vector<std::uint64_t>& bin_counts,
                          std::uint64_t device_capacity, std::size_t workers) {
  BucketSplit split;
  split.capacity = split_capacity(bin_counts, device_capacity, workers);
  split.buckets = gpu::bwt::plan_buckets(bin_counts, split.capacity);
  split.per_worker = assign_largest_first(split.buckets, workers);
  split.load.assign(workers, 0);
  split.largest.assign(workers, 0);
  for (std::size_t w = 0; w < workers; ++w)
    for (const std::size_t b : split.per_worker[w]) {
      split.load[w] += split.buckets[b].suffixes;
      split.largest[w] = std::max(split.largest[w], split.buckets[b].suffixes);
    }
  return split;
}

}  // namespace seqfuse::bwt
