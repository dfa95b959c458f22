// pair_dp.hpp's max-plus policy on the device: DPX on Hopper, the portable
// form elsewhere (dpx.cuh decides). Host passes never call it. Shared by the
// kernels that run SF_HOST_DEVICE DP code templated on a policy
// (score_pairs.cu, score_db_long.cu).
#pragma once

#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include "gpu/primitives/dpx.cuh"
#include "gpu/align/pair_dp.hpp"

namespace seqfuse::gpu {

struct DeviceMaxPlus {
  static SF_HOST_DEVICE int add_max(int a, int b, int c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return gpu::add_max(a, b, c);
#else
    return align::pairs::PortableMaxPlus::add_max(a, b, c);
#endif
  }
  static SF_HOST_DEVICE int max3(int a, int b, int c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return gpu::max3(a, b, c);
#else
    return align::pairs::PortableMaxPlus::max3(a, b, c);
#endif
  }
  static SF_HOST_DEVICE int max3_relu(int a, int b, int c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return gpu::max3_relu(a, b, c);
#else
    return align::pairs::PortableMaxPlus::max3_relu(a, b, c);
#endif
  }
  // An empty asm statement the optimizer cannot see through (same on both
  // vendors' device compilers), so a value computed once per chunk stays in
  // a register instead of being recomputed in the loop.
  static SF_HOST_DEVICE int opaque(int x) {
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+r"(x));
#elif defined(__HIP_DEVICE_COMPILE__)
    asm volatile("" : "+v"(x));
#endif
    return x;
  }
};

}  // namespace seqfuse::gpu
