// SF_HOST_DEVICE marks inline math shared by GPU kernels and the CPU engine,
// so CI on a machine without a GPU exercises the same arithmetic.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SF_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SF_HOST_DEVICE inline
#endif
