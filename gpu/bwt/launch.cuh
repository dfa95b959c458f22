// The launch shape gpu/bwt's kernels share: one thread per item, 256 to a
// block, 64-bit indices (texts pass 2^32 suffixes).
#pragma once

#include <cstdint>

#include "gpu/vendor.cuh"

namespace seqfuse::gpu::bwt {

inline constexpr unsigned kThreads = 256;

inline unsigned blocks_for(std::uint64_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

static __device__ std::uint64_t thread_index() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

}  // namespace seqfuse::gpu::bwt
