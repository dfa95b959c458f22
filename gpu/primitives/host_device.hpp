// SF_HOST_DEVICE marks inline math shared by GPU kernels and the CPU engine,
// so CI on a machine without a GPU exercises the same arithmetic.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SF_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SF_HOST_DEVICE inline
#endif

// `#pragma unroll` in device passes only: g++ (nvcc's host pass, CPU builds)
// warns on it, and shared DP code is compiled by both.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SF_DEVICE_UNROLL _Pragma("unroll")
#else
#define SF_DEVICE_UNROLL
#endif
