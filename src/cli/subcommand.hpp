// How a subcommand plugs into main(): each cli_<name>.cpp binds its options
// to a plain config struct (validated before any work) and returns the
// parsed CLI11 app plus the function that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "core/device_choice.hpp"

namespace seqfuse::cli {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the exit status; throws seqfuse::Error
};

// Options every subcommand shares.
struct CommonOptions {
  int threads = 0;  // 0: every hardware thread
  std::string device = "auto";
  bool quiet = false;
};

void add_threads_option(CLI::App& app, CommonOptions& options);
void add_device_option(CLI::App& app, CommonOptions& options);
void add_quiet_option(CLI::App& app, CommonOptions& options);
// --device resolved against the GPUs this build and machine have.
[[nodiscard]] DeviceChoice choose_device(const CommonOptions& options);

Subcommand add_info(CLI::App& parent);

}  // namespace seqfuse::cli
