#include "core/json_report.hpp"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse {
namespace {

using Json = nlohmann::ordered_json;  // keys in the documented order

// Bytes of a regular file; null for stdin/stdout, devices, FIFOs and
// folders, whose size means nothing (or cannot be known without reading them).
Json size_of(const std::string& path) {
  struct stat info {};
  if (names_stdout(path) || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return nullptr;
  return static_cast<std::uint64_t>(info.st_size);
}

Json files(const std::vector<std::string>& paths) {
  Json list = Json::array();
  for (const std::string& path : paths) list.push_back({{"path", path}, {"bytes", size_of(path)}});
  return list;
}

Json device(const RunFacts& facts) {
  const DeviceChoice& choice = facts.device();
  Json entry = {{"kind", choice.gpu ? "gpu" : "cpu"}, {"id", choice.name()}};
  std::string name = "cpu";
  if (choice.gpu) {
    // A name the runtime no longer gives is no reason to fail a finished run.
    name = gpu::device_name(choice.first());
    if (name.empty()) name = "gpu";
  }
  entry["name"] = name;
  entry["threads"] = facts.threads();
  return entry;
}

}  // namespace

bool names_stdout(const std::string& path) {
  return path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1";
}

std::string json_report_text(const ReportSource& source, const RunFacts& facts) {
  Json counts = Json::object();
  for (const auto& [key, value] : facts.counts()) counts[key] = value;
  Json phases = Json::array();
  for (const RunFacts::Phase& phase : facts.phases())
    phases.push_back({{"name", phase.name}, {"seconds", phase.seconds}});
  Json throughput = nullptr;
  if (!facts.throughput().unit.empty())
    throughput = {{"value", facts.throughput().value}, {"unit", facts.throughput().unit}};

  const Json report = {
      {"schema", "seqfuse-run-report"},
      {"schema_version", kJsonReportSchemaVersion},
      {"tool", "seqfuse"},
      {"version", source.version},
      {"commit", source.commit},
      {"subcommand", source.subcommand},
      {"command_line", source.arguments},
      {"status", "ok"},
      {"exit_status", 0},
      {"device", device(facts)},
      {"inputs", files(facts.inputs())},
      {"outputs", files(facts.outputs())},
      {"counts", counts},
      {"seconds", {{"total", facts.seconds()}, {"phases", phases}}},
      {"throughput", throughput},
  };
  // Invalid UTF-8 in a path or argument becomes U+FFFD rather than failing a finished run.
  return report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

JsonReport::JsonReport(const std::string& path, bool stdout_taken) {
  if (path.empty()) return;
  if (names_stdout(path) && stdout_taken)
    throw UsageError("--json " + path + ": another output of this run already writes to stdout");
  out_.emplace(path, OutputKind::binary);  // plain JSON whatever the name: never BGZF
}

void JsonReport::write(const ReportSource& source, const RunFacts& facts) {
  if (!out_) return;
  out_->write(json_report_text(source, facts));
  out_->commit();
}

}  // namespace seqfuse
