// --device auto|cpu|gpu|gpu:N (and SEQFUSE_DEVICE): parsing and resolution.
#pragma once

#include <string>
#include <string_view>

namespace seqfuse {

struct DeviceSpec {
  enum class Kind { kAuto, kCpu, kGpu } kind = Kind::kAuto;
  int index = -1;  // gpu:N; -1 means the first device
};

struct DeviceChoice {
  bool gpu = false;
  int index = 0;  // meaningful when gpu
  [[nodiscard]] std::string name() const { return gpu ? "gpu:" + std::to_string(index) : "cpu"; }
};

// Throws UsageError for anything but auto, cpu, gpu or gpu:N.
[[nodiscard]] DeviceSpec parse_device_spec(std::string_view text);
// auto takes GPU 0 when there is one; gpu and gpu:N without such a device are
// runtime errors (exit 1) naming what was found.
[[nodiscard]] DeviceChoice resolve_device(const DeviceSpec& spec, int device_count);

// -t/--threads: 0 means every CPU this process may use (cpu_budget()).
[[nodiscard]] unsigned resolve_threads(int requested);

}  // namespace seqfuse
