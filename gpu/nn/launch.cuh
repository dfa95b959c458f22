// Launch helpers of the gpu/nn ops (device compilation only).
#pragma once

#include <atomic>
#include <cstddef>

#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::nn {

inline gpuStream_t native_stream(Stream& stream) {
  return static_cast<gpuStream_t>(stream.native());
}

inline unsigned blocks_for(std::size_t items, unsigned threads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

// An attribute of the calling thread's current device, asked once per device
// (launchers need the warp size and the compute capability; neither changes).
inline int current_device_attribute(gpuDeviceAttr_t attribute) {
  constexpr int kDevices = 64, kAttributes = 2;
  static std::atomic<int> known[kDevices][kAttributes] = {};  // 0: not asked yet
  const int slot = attribute == gpuDevAttrWarpSize ? 0 : 1;
  int device = 0;
  GPU_CHECK(gpuGetDevice(&device));
  int value = device >= 0 && device < kDevices ? known[device][slot].load() : 0;
  if (value == 0) {
    GPU_CHECK(gpuDeviceGetAttribute(&value, attribute, device));
    if (device >= 0 && device < kDevices) known[device][slot].store(value);
  }
  return value;
}
inline int current_warp_size() {
  return current_device_attribute(gpuDevAttrWarpSize);
}
inline int current_compute_major() {
  return current_device_attribute(gpuDevAttrComputeCapabilityMajor);
}

}  // namespace seqfuse::gpu::nn
