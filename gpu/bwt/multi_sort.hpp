// The pieces of the bucketed suffix sort (bucket_sort.cu) that
// `seqfuse bwt --device gpu:0,1,...` spreads over several devices
// (src/bwt/gpu_multi_sort.cpp puts them together, one host thread a worker):
// every device holds the text; the first ("home") device holds the rank of
// every suffix; each worker sorts its buckets with a BucketWorker on its own
// device and writes their ranks straight into home's array (peer access:
// NVLink or PCIe); home then runs the doubling over the tied suffixes and
// copies the rows out, as the one-device sort does. Plain C++ so src/bwt
// can call it. Each call runs on the calling thread's current device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu/bwt/bucket_keys.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/bwt/tied_doubling.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::gpu::bwt {

// A packed text (suffix_sort.hpp) unpacked on the current device, 1 byte a
// code. Throws gpu::Error when `bytes` is too short for `length`.
class DeviceText {
 public:
  DeviceText(const PackedCodes& text, unsigned host_threads);
  // A copy of `source` (on `source_device`, which the current device can
  // reach: reach()) made device to device: NVLink or PCIe peer traffic, no
  // host memory (the host's staged copies serve one device a process).
  DeviceText(const DeviceText& source, int source_device);
  [[nodiscard]] const std::uint8_t* codes() const { return codes_.as<std::uint8_t>(); }
  [[nodiscard]] std::uint64_t size() const { return n_; }

 private:
  DeviceBuffer codes_;
  std::uint64_t n_ = 0;
};

// Whether the one-pass sort takes a text of n codes on the current device
// (as sort_suffixes chooses it): the multi-device sort is for the others.
[[nodiscard]] bool one_pass_fits(std::uint64_t n);

// Suffixes per bin (kBins of them) of a text on the current device.
[[nodiscard]] std::vector<std::uint64_t> count_bucket_bins(const DeviceText& text);

// Suffixes a bucket may hold on the current device when `workers` workers
// share it, each with a bucket's space, from its free memory now.
[[nodiscard]] std::uint64_t bucket_capacity_here(std::size_t workers);

// Whether kernels on `device` can write into memory of `home` (true for the
// same device); starts neither.
[[nodiscard]] bool can_reach(int device, int home);
// Lets the current device's kernels write into `home`'s memory (nothing to
// do when it is home).
void reach(int home);

// Sorts buckets on the current device, one after another, in the space of
// `capacity` suffixes (bucket_sort.cu's BucketSorter on a stream of its own).
class BucketWorker {
 public:
  BucketWorker(const DeviceText& text, std::uint64_t capacity);
  ~BucketWorker();
  BucketWorker(const BucketWorker&) = delete;
  BucketWorker& operator=(const BucketWorker&) = delete;
  // Writes the bucket's ranks into `rank` (home's array, n + 1 entries) and
  // appends its tied suffixes to `tied` as one block (workers may append at
  // once: each claims its block); returns the window rounds.
  int sort(const Bucket& bucket, std::uint64_t* rank, TiedList& tied);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// On home, once every bucket is ranked: the tied suffixes sorted by
// doubling in chunks of `capacity`, then the rows into `out` (in slices of
// `capacity` suffixes' worth of memory when `forced`, of the free memory
// otherwise), as sort_in_buckets ends.
void finish_bucket_ranks(std::uint64_t* rank, const DeviceText& text, TiedList& tied,
                         std::uint64_t capacity, bool forced, const SortOutput& out);

}  // namespace seqfuse::gpu::bwt
