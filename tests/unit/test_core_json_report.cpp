// The --json run report's module (core/json_report.hpp): the document's
// keys and types as docs/json-report.md lists them, and the rule that a
// report exists only for a run that succeeded. The subcommands' own counts
// are checked through the binary in test_cli_json_report.cpp.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "core/json_report.hpp"
#include "test_temp_dir.hpp"

namespace {

using nlohmann::json;
using seqfuse::JsonReport;
using seqfuse::ReportSource;
using seqfuse::RunFacts;
using seqfuse::test::TempDir;

ReportSource source() {
  return {"kmer-count stats", "9.9.9", "abc123", {"seqfuse", "x"}};
}

}  // namespace

TEST_CASE("json report: every documented key, in order, with its type", "[report]") {
  TempDir dir;
  const auto input = dir.file("in.txt");
  std::ofstream(input) << "12345";
  RunFacts facts;
  facts.input(input.string());
  facts.input("-");
  facts.output(dir.file("missing").string());
  facts.count("distinct", 7);
  facts.count("total", 1);
  facts.count("total", 9);  // the last value wins, the first position stays
  facts.phase("read");
  facts.phase("write");
  facts.device(seqfuse::DeviceChoice{}, 3);
  facts.throughput(100, 4, "k-mers/s");

  const json report = json::parse(seqfuse::json_report_text(source(), facts));
  // nlohmann's parse sorts keys; the text keeps the documented order, checked below.
  CHECK(report.size() == 15);
  const std::string text = seqfuse::json_report_text(source(), facts);
  std::size_t at = 0;
  for (const char* key : {"schema", "schema_version", "tool", "version", "commit", "subcommand",
                          "command_line", "status", "exit_status", "device", "inputs", "outputs",
                          "counts", "seconds", "throughput"}) {
    const std::size_t found = text.find("\n  \"" + std::string(key) + "\":");
    INFO(key);
    REQUIRE(found != std::string::npos);
    CHECK(found > at);
    at = found;
  }
  CHECK(report["schema"] == "seqfuse-run-report");
  CHECK(report["schema_version"] == seqfuse::kJsonReportSchemaVersion);
  CHECK(report["tool"] == "seqfuse");
  CHECK(report["version"] == "9.9.9");
  CHECK(report["commit"] == "abc123");
  CHECK(report["subcommand"] == "kmer-count stats");
  CHECK(report["command_line"] == json::array({"seqfuse", "x"}));
  CHECK(report["status"] == "ok");
  CHECK(report["exit_status"] == 0);
  CHECK(report["device"] == json{{"kind", "cpu"}, {"id", "cpu"}, {"name", "cpu"}, {"threads", 3}});
  CHECK(report["inputs"][0]["bytes"] == 5);
  CHECK(report["inputs"][1]["path"] == "-");
  CHECK(report["inputs"][1]["bytes"].is_null());
  CHECK(report["outputs"][0]["bytes"].is_null());
  CHECK(report["counts"] == json{{"distinct", 7}, {"total", 9}});
  CHECK(text.find("\"distinct\"") < text.find("\"total\""));
  REQUIRE(report["seconds"]["phases"].size() == 2);
  CHECK(report["seconds"]["phases"][0]["name"] == "read");
  CHECK(report["seconds"]["phases"][1]["name"] == "write");
  double sum = 0;
  for (const auto& phase : report["seconds"]["phases"]) {
    CHECK(phase["seconds"].get<double>() >= 0);
    sum += phase["seconds"].get<double>();
  }
  CHECK(report["seconds"]["total"].get<double>() >= sum);
  CHECK(report["throughput"]["value"] == 25.0);
  CHECK(report["throughput"]["unit"] == "k-mers/s");
}

TEST_CASE("json report: a run that never finishes leaves no report", "[report]") {
  TempDir dir;
  const auto path = dir.file("r.json");
  {
    JsonReport report(path.string(), false);
    CHECK(report.wanted());
    // The run throws here: the report is never written.
  }
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK(std::filesystem::is_empty(dir.path()));  // no temporary left either
  {
    JsonReport report(path.string(), false);
    report.write(source(), RunFacts{});
  }
  CHECK(json::parse(seqfuse::test::slurp(path))["status"] == "ok");
}

TEST_CASE("json report: refused paths fail when opened, before any work", "[report]") {
  TempDir dir;
  CHECK_THROWS_AS(JsonReport((dir.path() / "no" / "r.json").string(), false), seqfuse::Error);
  CHECK_THROWS_AS(JsonReport("-", true), seqfuse::UsageError);
  CHECK_FALSE(JsonReport("", true).wanted());
  JsonReport none("", false);
  none.write(source(), RunFacts{});  // no report asked for: nothing written, nothing thrown
  CHECK(std::filesystem::is_empty(dir.path()));
}
