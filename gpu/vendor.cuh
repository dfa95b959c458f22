// The one place that knows which GPU vendor we compile for.
// Kernels and launchers use the gpu* names below, never cuda* or hip*.
// Compiled by nvcc (CUDA) or hipcc/clang (HIP); never included from src/.
#pragma once

#include <cstdint>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define SEQFUSE_VENDOR_HIP 1
#include <hip/hip_runtime.h>
#else
#define SEQFUSE_VENDOR_CUDA 1
#include <cuda_runtime.h>
#endif

#include "gpu/primitives/host_device.hpp"

#if SEQFUSE_VENDOR_HIP
using gpuError_t = hipError_t;
using gpuStream_t = hipStream_t;
using gpuEvent_t = hipEvent_t;
using gpuDeviceProp_t = hipDeviceProp_t;
using gpuDeviceAttr_t = hipDeviceAttribute_t;
inline constexpr gpuError_t gpuSuccess = hipSuccess;
inline constexpr gpuError_t gpuErrorMemoryAllocation = hipErrorOutOfMemory;
#define gpuGetErrorString hipGetErrorString
#define gpuGetErrorName hipGetErrorName
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuSetDevice hipSetDevice
#define gpuGetDevice hipGetDevice
#define gpuDeviceReset hipDeviceReset
#define gpuMemGetInfo hipMemGetInfo
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuHostAlloc(ptr, bytes) hipHostMalloc(ptr, bytes, hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamCreateWithPriority hipStreamCreateWithPriority
#define gpuDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventCreateWithFlags hipEventCreateWithFlags
#define gpuEventDisableTiming hipEventDisableTiming
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuSetDeviceFlags hipSetDeviceFlags
#define gpuDeviceCanAccessPeer hipDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define gpuMemcpyPeerAsync hipMemcpyPeerAsync
#define gpuDeviceScheduleAuto hipDeviceScheduleAuto
#define gpuDeviceScheduleSpin hipDeviceScheduleSpin
#define gpuDeviceScheduleYield hipDeviceScheduleYield
#define gpuDeviceScheduleBlockingSync hipDeviceScheduleBlockingSync
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor
#define gpuDevAttrWarpSize hipDeviceAttributeWarpSize
#define gpuDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#else
using gpuError_t = cudaError_t;
using gpuStream_t = cudaStream_t;
using gpuEvent_t = cudaEvent_t;
using gpuDeviceProp_t = cudaDeviceProp;
using gpuDeviceAttr_t = cudaDeviceAttr;
inline constexpr gpuError_t gpuSuccess = cudaSuccess;
inline constexpr gpuError_t gpuErrorMemoryAllocation = cudaErrorMemoryAllocation;
#define gpuGetErrorString cudaGetErrorString
#define gpuGetErrorName cudaGetErrorName
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuSetDevice cudaSetDevice
#define gpuGetDevice cudaGetDevice
#define gpuDeviceReset cudaDeviceReset
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuHostAlloc(ptr, bytes) cudaHostAlloc(ptr, bytes, cudaHostAllocDefault)
#define gpuFreeHost cudaFreeHost
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamCreateWithPriority cudaStreamCreateWithPriority
#define gpuDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventDisableTiming cudaEventDisableTiming
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuSetDeviceFlags cudaSetDeviceFlags
#define gpuDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define gpuMemcpyPeerAsync cudaMemcpyPeerAsync
#define gpuDeviceScheduleAuto cudaDeviceScheduleAuto
#define gpuDeviceScheduleSpin cudaDeviceScheduleSpin
#define gpuDeviceScheduleYield cudaDeviceScheduleYield
#define gpuDeviceScheduleBlockingSync cudaDeviceScheduleBlockingSync
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define gpuDevAttrWarpSize cudaDevAttrWarpSize
#define gpuDevAttrMultiProcessorCount cudaDevAttrMultiProcessorCount
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#endif

namespace seqfuse::gpu {

// Threads per warp (NVIDIA) or wavefront (AMD CDNA: 64). Device code only;
// host code reads DeviceInfo::warp_size.
__device__ constexpr int warp_size() {
#if SEQFUSE_VENDOR_HIP
  return __AMDGCN_WAVEFRONT_SIZE;
#else
  return 32;
#endif
}

// Every lane of the warp, for the *_sync intrinsics.
#if SEQFUSE_VENDOR_HIP
using lane_mask_t = std::uint64_t;
#else
using lane_mask_t = std::uint32_t;
#endif
__device__ constexpr lane_mask_t full_lane_mask() {
  return ~lane_mask_t{0};
}

// Warp-wide votes and broadcasts over every lane (all lanes must call them).
__device__ inline lane_mask_t warp_ballot(bool predicate) {
#if SEQFUSE_VENDOR_HIP
  return __ballot(predicate);
#else
  return __ballot_sync(full_lane_mask(), predicate);
#endif
}
// The lanes below the calling one: rank of a lane among the voters is
// popcount(ballot & lanes_below()).
__device__ inline lane_mask_t lanes_below() {
#if SEQFUSE_VENDOR_HIP
  return __lanemask_lt();
#else
  return (lane_mask_t{1} << (threadIdx.x % warp_size())) - 1;
#endif
}
__device__ inline int lane_count(lane_mask_t mask) {
#if SEQFUSE_VENDOR_HIP
  return __popcll(mask);
#else
  return __popc(mask);
#endif
}
__device__ inline unsigned long long warp_broadcast(unsigned long long value, int lane) {
#if SEQFUSE_VENDOR_HIP
  return __shfl(value, lane);
#else
  return __shfl_sync(full_lane_mask(), value, lane);
#endif
}

// Butterfly exchange within the warp (all lanes must call it): the value of
// lane (this lane xor `mask`); T is int, float or double.
template <class T>
__device__ inline T warp_shuffle_xor(T value, int mask) {
#if SEQFUSE_VENDOR_HIP
  return __shfl_xor(value, mask);
#else
  return __shfl_xor_sync(full_lane_mask(), value, mask);
#endif
}

// Within groups of `width` lanes (a power of two up to 32, the same on both
// vendors): the value of the lane `delta` below this one (lanes below the
// group's first get their own). Every lane of the group must call it.
template <class T>
__device__ inline T shuffle_up(T value, unsigned delta, int width) {
#if SEQFUSE_VENDOR_HIP
  return __shfl_up(value, delta, width);
#else
  return __shfl_up_sync(full_lane_mask(), value, delta, width);
#endif
}

// Orders the memory accesses of the lanes of a warp (CUDA lanes may run
// apart; an AMD wavefront runs in lockstep and needs only the fence).
__device__ inline void warp_sync() {
#if SEQFUSE_VENDOR_HIP
  __threadfence_block();
#else
  __syncwarp();
#endif
}

// Throws seqfuse::Error (OutOfDeviceMemory for allocation failures) naming
// the failed call and where it was made. Defined in runtime/check.cu.
[[noreturn]] void throw_gpu_error(gpuError_t err, const char* call, const char* file, int line);

inline void check(gpuError_t err, const char* call, const char* file, int line) {
  if (err != gpuSuccess) throw_gpu_error(err, call, file, line);
}

}  // namespace seqfuse::gpu

// Wrap every runtime call: GPU_CHECK(gpuMalloc(&p, n));
#define GPU_CHECK(expr) ::seqfuse::gpu::check((expr), #expr, __FILE__, __LINE__)
// After each kernel launch: catches bad launch configurations at once.
#define GPU_CHECK_LAUNCH() GPU_CHECK(gpuGetLastError())

namespace seqfuse::gpu {

// Blocks of `kernel` (`threads` each, no dynamic shared memory) that the
// current device runs at once: its multiprocessors times the blocks one
// multiprocessor holds. At least 1.
template <class Kernel>
inline int resident_blocks(Kernel kernel, int threads) {
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  GPU_CHECK(gpuGetDevice(&device));
  GPU_CHECK(gpuDeviceGetAttribute(&multiprocessors, gpuDevAttrMultiProcessorCount, device));
  GPU_CHECK(gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, 0));
  return multiprocessors * per_multiprocessor > 0 ? multiprocessors * per_multiprocessor : 1;
}

}  // namespace seqfuse::gpu
