// Sorted suffixes to the index's rows, on the device: for rows
// [first_row, first_row + count) with their suffixes' positions in `order`,
// the BWT code (the character before the suffix, kSentinelCode for the whole
// text) and the suffix-array samples of rows that are multiples of the
// interval; then both copied into the caller's host spans. Shared by the
// one-pass and the bucketed sorts, so only the rows' 1 byte (plus 8 bytes a
// sample) cross PCIe, never the 8-byte suffix array.
#pragma once

#include <cstdint>

#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::bwt {

template <class Position>
static __global__ void row_output_kernel(const Position* order, std::uint64_t count,
                                         std::uint64_t first_row, const std::uint8_t* text,
                                         std::uint64_t interval_mask,
                                         std::uint64_t first_sample_row, std::uint8_t* bwt,
                                         std::uint64_t* samples, int interval_shift) {
  const std::uint64_t j = thread_index();
  if (j >= count) return;
  const std::uint64_t suffix = order[j];
  bwt[j] = suffix == 0 ? kSentinelCode : text[suffix - 1];
  const std::uint64_t row = first_row + j;
  if ((row & interval_mask) == 0) samples[(row - first_sample_row) >> interval_shift] = suffix;
}

// Rows [first_row, first_row + count) into out.bwt and out.samples, through
// device scratch of `count` codes and count / interval + 1 samples; waits
// for the copies.
template <class Position>
void output_rows(const Position* order, std::uint64_t count, std::uint64_t first_row,
                 const std::uint8_t* device_text, const SortOutput& out, std::uint8_t* bwt,
                 std::uint64_t* samples, Stream& stream) {
  if (count == 0) return;
  const std::uint64_t interval = out.interval;
  int shift = 0;
  while ((std::uint64_t{1} << shift) < interval) ++shift;
  // Samples in range: rows first_sample_row, + interval, ... < first_row + count.
  const std::uint64_t first_sample_row = (first_row + interval - 1) & ~(interval - 1);
  const std::uint64_t end_row = first_row + count;
  const std::uint64_t sample_count =
      end_row > first_sample_row ? (end_row - first_sample_row + interval - 1) >> shift : 0;
  const auto s = static_cast<gpuStream_t>(stream.native());
  row_output_kernel<<<blocks_for(count), kThreads, 0, s>>>(
      order, count, first_row, device_text, interval - 1, first_sample_row, bwt, samples, shift);
  GPU_CHECK_LAUNCH();
  copy_to_host(out.bwt.data() + first_row, bwt, count, stream);
  if (sample_count > 0)
    copy_to_host(out.samples.data() + (first_sample_row >> shift), samples,
                 sample_count * sizeof(std::uint64_t), stream);
  stream.synchronize();
}

}  // namespace seqfuse::gpu::bwt
