// --json FILE: the machine-readable report of one run, for workflow
// managers and MultiQC-style collectors. Keys and their meaning are
// docs/json-report.md (schema_version 1); that page and this module change
// together.
//
// Written only when the run succeeds: the report is an output like any
// other, so it follows the project's rule for outputs (whole or not at all,
// through OutputFile). A failed run leaves no report; its one error line on
// stderr and its exit status say what went wrong. A report that exists thus
// always describes a finished run, which is what a workflow rule that lists
// it as an output expects.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/output_file.hpp"
#include "core/run_facts.hpp"

namespace seqfuse {

// Who wrote the report: filled by the command line layer.
struct ReportSource {
  std::string subcommand;  // "align-sw", "kmer-count stats"
  std::string version;
  std::string commit;
  std::vector<std::string> arguments;  // argv as given
};

class JsonReport {
 public:
  // An empty path asks for no report. Otherwise the output is opened now,
  // so an unwritable path (or one that is an input or another output)
  // fails before any work. "-" writes the report to stdout, refused with a
  // UsageError when `stdout_taken` (another output of the run goes there).
  JsonReport(const std::string& path, bool stdout_taken);

  [[nodiscard]] bool wanted() const noexcept { return out_.has_value(); }
  // Writes the report of a run that finished with exit status 0, then
  // commits it. Does nothing when no report was asked for.
  void write(const ReportSource& source, const RunFacts& facts);

 private:
  std::optional<OutputFile> out_;
};

// Whether an output path writes to this process's stdout ("-",
// /dev/stdout, /dev/fd/1, /proc/self/fd/1): a report there needs the run's
// other outputs elsewhere.
[[nodiscard]] bool names_stdout(const std::string& path);

// The report's text (pretty JSON, a final newline), as write() puts it.
[[nodiscard]] std::string json_report_text(const ReportSource& source, const RunFacts& facts);

// The schema version the report's "schema_version" key carries.
inline constexpr int kJsonReportSchemaVersion = 1;

}  // namespace seqfuse
