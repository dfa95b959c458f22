// The substitution table of the 32-bit search kernels (score_db.cu,
// score_db_long.cu) in shared memory, in the layout the pairs kernel gets
// from the host (pair_dp.hpp): table[q * kTableStride + t] for a query
// letter q and target letter t, and a sentinel row kSentinelRow of kPastEnd
// for rows past the query's end.
#pragma once

#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include "gpu/align/pair_dp.hpp"

namespace seqfuse::gpu {

// All threads of the block call it; it ends with a barrier. `matrix` is
// row-major alphabet x alphabet in device memory.
__device__ inline void load_search_table(int* table, const int* __restrict__ matrix, int alphabet) {
  using namespace align::pairs;
  for (int k = threadIdx.x; k < alphabet * alphabet; k += blockDim.x)
    table[(k / alphabet) * kTableStride + k % alphabet] = matrix[k];
  for (int k = threadIdx.x; k < kTableStride; k += blockDim.x)
    table[kSentinelRow * kTableStride + k] = kPastEnd;
  __syncthreads();
}

}  // namespace seqfuse::gpu
