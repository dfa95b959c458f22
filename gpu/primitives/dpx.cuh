// Max-plus helpers for dynamic programming. Hopper (sm_90) has DPX
// instructions for these; every other target, HIP included, gets the
// portable form. Kernels call these functions, never the intrinsics.
#pragma once

#include "../vendor.cuh"

namespace seqfuse::gpu {

#if SEQFUSE_VENDOR_CUDA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SEQFUSE_HAVE_DPX 1
#endif

// max(a + b, c)
__device__ __forceinline__ int add_max(int a, int b, int c) {
#ifdef SEQFUSE_HAVE_DPX
  return __viaddmax_s32(a, b, c);
#else
  return max(a + b, c);
#endif
}

// max(a, b, c)
__device__ __forceinline__ int max3(int a, int b, int c) {
#ifdef SEQFUSE_HAVE_DPX
  return __vimax3_s32(a, b, c);
#else
  return max(a, max(b, c));
#endif
}

// max(a, b, c, 0)
__device__ __forceinline__ int max3_relu(int a, int b, int c) {
#ifdef SEQFUSE_HAVE_DPX
  return __vimax3_s32_relu(a, b, c);
#else
  return max(max(a, 0), max(b, c));
#endif
}

}  // namespace seqfuse::gpu
