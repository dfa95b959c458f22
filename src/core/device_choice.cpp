#include "core/device_choice.hpp"

#include <charconv>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace seqfuse {
namespace {

// More workers than this is a typo, not a machine: 8 GPUs with 8 workers each.
constexpr std::size_t kMaxWorkers = 64;

std::string joined(const std::vector<int>& indexes) {
  std::string text;
  for (const int index : indexes) {
    if (!text.empty()) text += ',';
    text += std::to_string(index);
  }
  return text;
}

}  // namespace

std::string DeviceChoice::name() const {
  return gpu ? "gpu:" + joined(devices) : "cpu";
}

DeviceSpec parse_device_spec(std::string_view text) {
  if (text == "auto") return {DeviceSpec::Kind::kAuto, {}, false};
  if (text == "cpu") return {DeviceSpec::Kind::kCpu, {}, false};
  if (text == "gpu") return {DeviceSpec::Kind::kGpu, {}, false};
  if (text == "gpu:all") return {DeviceSpec::Kind::kGpu, {}, true};
  const auto bad = [&] {
    return UsageError("--device must be auto, cpu, gpu, gpu:all or gpu:N[,M...], not '" +
                      std::string(text) + "'");
  };
  if (text.substr(0, 4) != "gpu:") throw bad();
  DeviceSpec spec{DeviceSpec::Kind::kGpu, {}, false};
  std::string_view rest = text.substr(4);
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view digits = rest.substr(0, comma);
    int index = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || index < 0)
      throw bad();
    spec.indexes.push_back(index);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (spec.indexes.size() > kMaxWorkers)
    throw UsageError("--device names " + std::to_string(spec.indexes.size()) +
                     " GPU workers; at most " + std::to_string(kMaxWorkers) + " are taken");
  return spec;
}

DeviceChoice resolve_device(const DeviceSpec& spec, int device_count) {
  switch (spec.kind) {
    case DeviceSpec::Kind::kCpu:
      return {};
    case DeviceSpec::Kind::kAuto:
      return device_count > 0 ? DeviceChoice::one(0) : DeviceChoice{};
    case DeviceSpec::Kind::kGpu:
      break;
  }
  // Named as the user wrote it: "--device gpu:3", not "--device gpu".
  const std::string asked = spec.all               ? "gpu:all"
                            : spec.indexes.empty() ? "gpu"
                                                   : "gpu:" + joined(spec.indexes);
  if (device_count == 0) throw Error("--device " + asked + ": no GPU found (see 'seqfuse info')");
  DeviceChoice choice{true, spec.indexes};
  if (spec.all)
    for (int index = 0; index < device_count; ++index) choice.devices.push_back(index);
  if (choice.devices.empty()) choice.devices.push_back(0);
  for (const int index : choice.devices)
    if (index >= device_count)
      throw Error("--device " + asked + ": only " + std::to_string(device_count) + " GPU(s) found");
  return choice;
}

unsigned resolve_threads(int requested) {
  if (requested > 0) return static_cast<unsigned>(requested);
  return cpu_budget();
}

}  // namespace seqfuse
