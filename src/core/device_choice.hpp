// --device auto|cpu|gpu|gpu:N|gpu:N,M,...|gpu:all (and SEQFUSE_DEVICE):
// parsing and resolution.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace seqfuse {

struct DeviceSpec {
  enum class Kind { kAuto, kCpu, kGpu } kind = Kind::kAuto;
  // gpu:N,M,...: the devices as written, repeats kept (gpu:0,0 runs two
  // workers on GPU 0, the multi-device path on one card). Empty: the first
  // device, or every device with `all`.
  std::vector<int> indexes;
  bool all = false;  // gpu:all
};

struct DeviceChoice {
  bool gpu = false;
  // One entry per GPU worker, in the order asked; never empty when gpu.
  // Most runs have one; engines that split work across devices give each
  // entry its own part (and host thread).
  std::vector<int> devices;
  [[nodiscard]] int first() const { return devices.empty() ? 0 : devices.front(); }
  [[nodiscard]] std::size_t workers() const { return gpu ? devices.size() : 0; }
  // "cpu", "gpu:0" or "gpu:0,1,3".
  [[nodiscard]] std::string name() const;
  [[nodiscard]] static DeviceChoice one(int index) { return {true, {index}}; }
};

// Throws UsageError for anything but auto, cpu, gpu, gpu:all or gpu:N[,M...].
[[nodiscard]] DeviceSpec parse_device_spec(std::string_view text);
// auto takes GPU 0 alone when there is one (never several: more GPUs are
// asked for by name); gpu, gpu:all and gpu:N without such a device are
// runtime errors (exit 1) naming what was found.
[[nodiscard]] DeviceChoice resolve_device(const DeviceSpec& spec, int device_count);

// -t/--threads: 0 means every CPU this process may use (cpu_budget()).
[[nodiscard]] unsigned resolve_threads(int requested);

}  // namespace seqfuse
