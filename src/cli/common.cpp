#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/subcommand.hpp"
#include "core/device_workers.hpp"
#include "core/error.hpp"
#include "core/git_commit.hpp"
#include "core/output_file.hpp"
#include "core/version.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::cli {

std::string& command_line() {
  static std::string line;
  return line;
}

std::vector<std::string>& arguments() {
  static std::vector<std::string> argv;
  return argv;
}

void add_json_option(CLI::App& app, std::string& path) {
  app.add_option("--json", path,
                 "Write a JSON report of the run (docs/json-report.md), - for stdout; "
                 "only when the run succeeds")
      ->type_name("FILE");
}

ReportSource report_source(std::string subcommand) {
  return {std::move(subcommand), kVersion, kGitCommit, arguments()};
}

// More threads than any machine seqfuse runs on has CPUs: a larger -t is a
// typo, and would fail late, when the operating system refuses a thread.
constexpr int kMaxThreads = 1024;

void add_threads_option(CLI::App& app, CommonOptions& options) {
  // Workflow managers append user `extra` arguments to their own: the last -t wins.
  app.add_option("-t,--threads", options.threads,
                 "Worker threads (0: every CPU this process may use: affinity, cgroup quota)")
      ->check([](const std::string& text) -> std::string {
        // CLI11's NonNegativeNumber printed a 309-digit range for -1 and
        // called 'abc' out of range; and -t 100000 ran until thread
        // creation failed ("Resource temporarily unavailable").
        int value = -1;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error != std::errc{} || stop != end || value < 0 || value > kMaxThreads)
          return "must be a whole number from 0 (every CPU this process may use) to " +
                 std::to_string(kMaxThreads) + ", not '" + text + "'";
        return {};
      })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->capture_default_str()
      ->each([](const std::string& value) {  // BGZF outputs compress on as many
        text_compression().threads = std::atoi(value.c_str());
      });
}

void add_compress_options(CLI::App& app) {
  TextCompression& settings = text_compression();
  app.add_flag("--compress", settings.always,
               "Write text outputs as BGZF (gzip-compatible), stdout too; a path ending in "
               ".gz always is");
  app.add_option("--compress-level", settings.level, "BGZF compression level, 0-9 (default 6)")
      ->check(CLI::Range(0, 9))
      ->type_name("N");
}

void add_device_option(CLI::App& app, CommonOptions& options) {
  app.add_option("--device", options.device,
                 "auto, cpu, gpu, gpu:N, gpu:N,M,... (several GPUs) or gpu:all")
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

std::string version_text() {
  const gpu::BackendInfo backend = gpu::backend();
  std::string text =
      std::string("seqfuse ") + kVersion + "\ncommit: " + kGitCommit + "\nbackends: cpu";
  if (backend.name != "none") {
    text += ", " + backend.name + " " + backend.runtime_version + " (compiled for " +
            backend.compiled_archs + "; driver " +
            (backend.driver_version.empty() ? "not loaded" : backend.driver_version) + ")";
  }
  return text;
}

void add_version_flags(CLI::App& app, bool short_name) {
  app.set_version_flag(short_name ? "-V,--version" : "--version", version_text,
                       "Print the version, git commit and backends, then exit");
  for (CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>{}))
    add_version_flags(*sub, short_name);
}

namespace {

// SEQFUSE_GPU_WAIT=auto|spin|yield|block: how host threads wait for the
// GPU, a knob for measuring whether spinning waits take cores that the
// host's own threads need (issue 17: fastq-trim's lanes wait while 16
// workers parse). Unset: the runtime's default, left untouched.
std::optional<gpu::HostWait> host_wait_from_env() {
  const char* value = std::getenv("SEQFUSE_GPU_WAIT");
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string text = value;
  if (text == "auto") return gpu::HostWait::automatic;
  if (text == "spin") return gpu::HostWait::spin;
  if (text == "yield") return gpu::HostWait::yield;
  if (text == "block") return gpu::HostWait::block;
  throw UsageError("SEQFUSE_GPU_WAIT must be auto, spin, yield or block, not '" + text + "'");
}

// Starts the current device (a first runtime call does), with the host
// wait asked for.
void start_current_device(std::optional<gpu::HostWait> wait) {
  if (wait) gpu::set_host_wait(*wait);
  (void)gpu::free_device_memory();
}

}  // namespace

DeviceChoice choose_device(const CommonOptions& options) {
  const DeviceSpec spec = parse_device_spec(options.device);
  if (spec.kind == DeviceSpec::Kind::kCpu) return {};
  // Counted without starting any device: only the chosen ones are started.
  const DeviceChoice choice = resolve_device(spec, gpu::device_count());
  if (!choice.gpu) return choice;
  const std::optional<gpu::HostWait> wait = host_wait_from_env();
  // Each device's context starts here, on the thread that overlaps the
  // input's reading, all at once: one after another on the workers' threads
  // they would add ~0.3 s each after the input is read.
  std::vector<int> distinct = choice.devices;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() > 1) {
    run_device_workers(distinct,
                       [wait](std::stop_token, std::size_t, int) { start_current_device(wait); });
  }
  gpu::use_device(choice.first());
  start_current_device(wait);
  return choice;
}

}  // namespace seqfuse::cli
