// Backend and device discovery.
#include <string>

#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu {
namespace {

std::string version_string(int v) {
#if SEQFUSE_VENDOR_HIP
  // HIP encodes major * 10'000'000 + minor * 100'000 + patch.
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100);
#else
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
#endif
}

std::string arch_name(const gpuDeviceProp_t& prop) {
#if SEQFUSE_VENDOR_HIP
  std::string arch = prop.gcnArchName;
  return arch.substr(0, arch.find(':'));  // drop feature flags like ":sramecc+:xnack-"
#else
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
#endif
}

}  // namespace

BackendInfo backend() {
  BackendInfo info;
#if SEQFUSE_VENDOR_HIP
  info.name = "HIP";
#else
  info.name = "CUDA";
#endif
  info.compiled_archs = SEQFUSE_GPU_ARCHS;
  int v = 0;
  if (gpuRuntimeGetVersion(&v) == gpuSuccess) info.runtime_version = version_string(v);
  if (gpuDriverGetVersion(&v) == gpuSuccess && v > 0) info.driver_version = version_string(v);
  (void)gpuGetLastError();
  return info;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> found;
  int count = 0;
  // No driver or no device is an ordinary answer here: report none.
  if (gpuGetDeviceCount(&count) != gpuSuccess) {
    (void)gpuGetLastError();
    return found;
  }
  int current = 0;
  GPU_CHECK(gpuGetDevice(&current));
  for (int i = 0; i < count; ++i) {
    gpuDeviceProp_t prop{};
    GPU_CHECK(gpuGetDeviceProperties(&prop, i));
    DeviceInfo d;
    d.index = i;
    d.name = prop.name;
    d.arch = arch_name(prop);
    d.total_memory = prop.totalGlobalMem;
    d.multiprocessors = prop.multiProcessorCount;
    d.warp_size = prop.warpSize;
    GPU_CHECK(gpuSetDevice(i));
    std::size_t free_bytes = 0, total_bytes = 0;
    GPU_CHECK(gpuMemGetInfo(&free_bytes, &total_bytes));
    d.free_memory = free_bytes;
    found.push_back(std::move(d));
  }
  if (count > 0) GPU_CHECK(gpuSetDevice(current));
  return found;
}

int device_count() {
  int count = 0;
  if (gpuGetDeviceCount(&count) != gpuSuccess) {  // no driver or no device: none
    (void)gpuGetLastError();
    return 0;
  }
  return count;
}

std::string device_name(int index) {
  gpuDeviceProp_t prop{};
  if (index < 0 || index >= device_count() || gpuGetDeviceProperties(&prop, index) != gpuSuccess) {
    (void)gpuGetLastError();
    return {};
  }
  return prop.name;
}

void use_device(int index) {
  GPU_CHECK(gpuSetDevice(index));
}

void end_device(int index) noexcept {
  if (gpuSetDevice(index) == gpuSuccess) (void)gpuDeviceReset();
}

void set_host_wait(HostWait wait) {
  unsigned flags = gpuDeviceScheduleAuto;
  switch (wait) {
    case HostWait::automatic:
      break;
    case HostWait::spin:
      flags = gpuDeviceScheduleSpin;
      break;
    case HostWait::yield:
      flags = gpuDeviceScheduleYield;
      break;
    case HostWait::block:
      flags = gpuDeviceScheduleBlockingSync;
      break;
  }
  // Allowed on a started device since CUDA 12 (the flags of its primary
  // context are replaced).
  GPU_CHECK(gpuSetDeviceFlags(flags));
}

int current_device() {
  int index = 0;
  GPU_CHECK(gpuGetDevice(&index));
  return index;
}

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPU_CHECK(gpuMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

}  // namespace seqfuse::gpu
