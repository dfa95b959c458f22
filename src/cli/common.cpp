#include "core/error.hpp"
#include "gpu/runtime.hpp"
#include "cli/subcommand.hpp"

namespace seqfuse::cli {

std::string& command_line() {
  static std::string line;
  return line;
}

void add_threads_option(CLI::App& app, CommonOptions& options) {
  app.add_option("-t,--threads", options.threads, "Worker threads (0: all hardware threads)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void add_device_option(CLI::App& app, CommonOptions& options) {
  app.add_option("--device", options.device, "auto, cpu, gpu or gpu:N")
      ->envname("SEQFUSE_DEVICE")
      ->capture_default_str()
      ->check([](const std::string& text) -> std::string {
        try {
          (void)parse_device_spec(text);
        } catch (const UsageError& e) {
          return e.what();
        }
        return {};
      });
}

void add_quiet_option(CLI::App& app, CommonOptions& options) {
  app.add_flag("-q,--quiet", options.quiet, "No progress, warnings or summary on stderr");
}

void add_quiet_long_option(CLI::App& app, CommonOptions& options) {
  app.add_flag("--quiet", options.quiet, "No progress, warnings or summary on stderr");
}

DeviceChoice choose_device(const CommonOptions& options) {
  const DeviceSpec spec = parse_device_spec(options.device);
  if (spec.kind == DeviceSpec::Kind::kCpu) return {};
  const auto found = gpu::devices();
  const DeviceChoice choice = resolve_device(spec, static_cast<int>(found.size()));
  if (choice.gpu) gpu::use_device(choice.index);
  return choice;
}

}  // namespace seqfuse::cli
