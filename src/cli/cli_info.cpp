// seqfuse info: what this build and machine offer.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/subcommand.hpp"
#include "core/output_file.hpp"
#include "core/report.hpp"
#include "core/version.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::cli {
namespace {

struct InfoConfig {
  CommonOptions common;
  std::string output = "-";
};

std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

int run_info(const InfoConfig& config) {
  Stopwatch clock;
  JsonReport json(config.common.json, names_stdout(config.output));
  Reporter report("info", config.common.quiet);
  OutputFile out(config.output, OutputKind::text);

  const auto found = gpu::devices();

  std::string text = version_text();
  text += "\nthreads: " + std::to_string(resolve_threads(config.common.threads)) + "\n";
  text += "devices: " + std::to_string(found.size()) + "\n";
  for (const auto& d : found) {
    text += "  gpu:" + std::to_string(d.index) + "  " + d.name + "  " + d.arch + "  " +
            std::to_string(d.multiprocessors) + " multiprocessors  warp " +
            std::to_string(d.warp_size) + "  " + gib(d.total_memory) + " (" + gib(d.free_memory) +
            " free)\n";
  }
  out.write(text);
  out.commit();
  report.summary(std::to_string(found.size()) + " GPU(s) found", clock.seconds());
  RunFacts& facts = report.facts();  // no work to rate: the report's throughput is null
  facts.output(config.output);
  facts.count("gpus", found.size());
  facts.phase("probe");
  facts.device(DeviceChoice{}, resolve_threads(config.common.threads));
  json.write(report_source("info"), facts);
  return 0;
}

}  // namespace

Subcommand add_info(CLI::App& parent) {
  auto config = std::make_shared<InfoConfig>();
  CLI::App* app = parent.add_subcommand("info", "What this build and machine offer");
  app->footer(
      "Examples:\n"
      "  seqfuse info\n"
      "  seqfuse info -o machine.txt");
  app->add_option("-o,--output", config->output, "Output path, - for stdout")
      ->capture_default_str();
  add_compress_options(*app);
  add_threads_option(*app, config->common);
  add_quiet_option(*app, config->common);
  add_json_option(*app, config->common.json);
  return {app, [config] { return run_info(*config); }};
}

}  // namespace seqfuse::cli
