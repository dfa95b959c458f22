// Ranked suffixes to the index's rows, on the device: from the row of each
// suffix (its rank, once every rank is distinct), the BWT code (the
// character before the suffix, kSentinelCode for the whole text) and the
// suffix-array samples of rows that are multiples of the interval; then
// both copied into the caller's host spans. Both sorts end this way. Only
// the rows' 1 byte (plus 8 bytes a sample) cross PCIe, never the 8-byte
// suffix array.
#pragma once

#include <algorithm>
#include <cstdint>

#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::bwt {

// The samples among rows [first_row, first_row + count): rows first, first
// + interval, ... (multiples of the interval).
struct SampleRange {
  SampleRange(std::uint64_t first_row, std::uint64_t count, std::uint32_t interval) {
    while ((std::uint64_t{1} << shift) < interval) ++shift;
    mask = std::uint64_t{interval} - 1;
    first = (first_row + mask) & ~mask;
    const std::uint64_t end_row = first_row + count;
    this->count = end_row > first ? (end_row - first + mask) >> shift : 0;
  }
  int shift = 0;
  std::uint64_t mask = 0;
  std::uint64_t first = 0;  // the first sampled row
  std::uint64_t count = 0;
};

// Device rows [first_row, first_row + count) (codes in `bwt`, samples in
// `samples`) into out's host spans; waits for the copies.
inline void copy_rows_out(std::uint64_t first_row, std::uint64_t count, const std::uint8_t* bwt,
                          const std::uint64_t* samples, const SampleRange& range,
                          const SortOutput& out, Stream& stream) {
  copy_to_pageable_host(out.bwt.data() + first_row, bwt, count, stream, out.host_threads);
  if (range.count > 0)
    copy_to_pageable_host(out.samples.data() + (range.first >> range.shift), samples,
                          range.count * sizeof(std::uint64_t), stream, out.host_threads);
}

// The rows of [first_row, first_row + count) from the ranks: suffix i is
// row rank[i] (every rank distinct).
static __global__ void ranked_rows_kernel(const std::uint64_t* rank, std::uint64_t n,
                                          const std::uint8_t* text, std::uint64_t first_row,
                                          std::uint64_t count, std::uint64_t interval_mask,
                                          std::uint64_t first_sample_row, std::uint8_t* bwt,
                                          std::uint64_t* samples, int interval_shift) {
  const std::uint64_t i = thread_index();
  if (i > n) return;
  const std::uint64_t row = rank[i];
  if (row < first_row || row - first_row >= count) return;
  bwt[row - first_row] = i == 0 ? kSentinelCode : text[i - 1];
  if ((row & interval_mask) == 0) samples[(row - first_sample_row) >> interval_shift] = i;
}

// Every row of text$ from the ranks of its n + 1 suffixes, in slices of
// rows that fit `budget` device bytes; one pass over the ranks a slice.
inline void output_ranked_rows(const std::uint64_t* rank, std::uint64_t n,
                               const std::uint8_t* device_text, const SortOutput& out,
                               std::uint64_t budget, Stream& stream) {
  const std::uint64_t interval = out.interval;
  const std::uint64_t bytes_per_row = 1 + (8 + interval - 1) / interval;
  const std::uint64_t rows = std::max(interval, budget / bytes_per_row / interval * interval);
  const std::uint64_t slice = std::min(rows, n + 1);
  DeviceBuffer bwt(slice);
  DeviceBuffer samples((slice / interval + 1) * sizeof(std::uint64_t));
  const auto s = static_cast<gpuStream_t>(stream.native());
  for (std::uint64_t first_row = 0; first_row <= n; first_row += slice) {
    const std::uint64_t count = std::min(slice, n + 1 - first_row);
    const SampleRange range(first_row, count, out.interval);
    ranked_rows_kernel<<<blocks_for(n + 1), kThreads, 0, s>>>(
        rank, n, device_text, first_row, count, range.mask, range.first, bwt.as<std::uint8_t>(),
        samples.as<std::uint64_t>(), range.shift);
    GPU_CHECK_LAUNCH();
    copy_rows_out(first_row, count, bwt.as<std::uint8_t>(), samples.as<std::uint64_t>(), range, out,
                  stream);
  }
}

}  // namespace seqfuse::gpu::bwt
