#include "core/device_choice.hpp"

#include <charconv>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace seqfuse {

DeviceSpec parse_device_spec(std::string_view text) {
  if (text == "auto") return {DeviceSpec::Kind::kAuto, -1};
  if (text == "cpu") return {DeviceSpec::Kind::kCpu, -1};
  if (text == "gpu") return {DeviceSpec::Kind::kGpu, -1};
  if (text.substr(0, 4) == "gpu:" && text.size() > 4) {
    int index = -1;
    const auto digits = text.substr(4);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec == std::errc() && end == digits.data() + digits.size() && index >= 0)
      return {DeviceSpec::Kind::kGpu, index};
  }
  throw UsageError("--device must be auto, cpu, gpu or gpu:N, not '" + std::string(text) + "'");
}

DeviceChoice resolve_device(const DeviceSpec& spec, int device_count) {
  switch (spec.kind) {
    case DeviceSpec::Kind::kCpu:
      return {false, 0};
    case DeviceSpec::Kind::kAuto:
      return device_count > 0 ? DeviceChoice{true, 0} : DeviceChoice{};
    case DeviceSpec::Kind::kGpu:
      break;
  }
  const int index = spec.index < 0 ? 0 : spec.index;
  // Named as the user wrote it: "--device gpu:3", not "--device gpu".
  const std::string asked = spec.index < 0 ? "gpu" : "gpu:" + std::to_string(spec.index);
  if (device_count == 0) throw Error("--device " + asked + ": no GPU found (see 'seqfuse info')");
  if (index >= device_count)
    throw Error("--device gpu:" + std::to_string(index) + ": only " + std::to_string(device_count) +
                " GPU(s) found");
  return {true, index};
}

unsigned resolve_threads(int requested) {
  if (requested > 0) return static_cast<unsigned>(requested);
  return cpu_budget();
}

}  // namespace seqfuse
