// One warp per row: the layout of the row-statistics kernels (layer_norm.cu,
// rms_norm.cu). A block of kThreads holds kThreads / warp size rows; each
// row's statistics are register sums over its lanes and a shuffle tree, with
// no barriers (a block per row spent most of its time in them). Device
// compilation only.
#pragma once

#include <cstddef>

#include "gpu/vendor.cuh"

namespace seqfuse::gpu::nn {

// The calling thread's row, its lane in the row's warp, and the warp size.
struct WarpRow {
  std::size_t row;
  unsigned lane, lanes;
};

template <unsigned kThreads>
__device__ __forceinline__ WarpRow warp_row() {
  const unsigned lanes = static_cast<unsigned>(warp_size());
  return {static_cast<std::size_t>(blockIdx.x) * (kThreads / lanes) + threadIdx.x / lanes,
          threadIdx.x % lanes, lanes};
}

// Sum of every lane's `value` over the warp, returned to all lanes.
__device__ __forceinline__ double warp_sum(double value) {
  for (int mask = warp_size() / 2; mask > 0; mask /= 2) value += warp_shuffle_xor(value, mask);
  return value;
}

}  // namespace seqfuse::gpu::nn
