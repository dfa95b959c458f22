// How a subcommand plugs into main(): each cli_<name>.cpp binds its options
// to a plain config struct (validated before any work) and returns the
// parsed CLI11 app plus the function that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "align/alignment.hpp"
#include "core/device_choice.hpp"
#include "core/json_report.hpp"

namespace seqfuse::cli {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the exit status; throws seqfuse::Error
};

// Options every subcommand shares.
struct CommonOptions {
  int threads = 0;  // 0: every CPU this process may use (cpu_budget())
  std::string device = "auto";
  bool quiet = false;
  std::string json;  // --json FILE: the run's report (core/json_report.hpp)
};

void add_threads_option(CLI::App& app, CommonOptions& options);
void add_device_option(CLI::App& app, CommonOptions& options);
// --compress and --compress-level for subcommands that write text
// (core/output_file.hpp: TextCompression).
void add_compress_options(CLI::App& app);
void add_quiet_option(CLI::App& app, CommonOptions& options);
// --quiet without -q, for subcommands whose peer tool owns -q (fastq-trim).
void add_quiet_long_option(CLI::App& app, CommonOptions& options);
// --device resolved against the GPUs this build and machine have.
[[nodiscard]] DeviceChoice choose_device(const CommonOptions& options);

// What --version prints: the version, the git commit built (or "unknown")
// and the backends this build has, as the first lines of 'seqfuse info'.
[[nodiscard]] std::string version_text();
// -V/--version (--version only where short_name is false) on app and every
// subcommand below it, so a version query works wherever it is typed.
void add_version_flags(CLI::App& app, bool short_name);

// The command line as typed, for provenance lines (SAM @PG).
[[nodiscard]] std::string& command_line();
// The same, one argument an entry (the --json report's "command_line").
[[nodiscard]] std::vector<std::string>& arguments();

// --json FILE: a machine-readable report of a run that succeeds
// (docs/json-report.md). Not on fastq-trim, whose -j/--json is fastp's report.
void add_json_option(CLI::App& app, std::string& path);
// The report's provenance: this build's version and commit, and argv.
[[nodiscard]] ReportSource report_source(std::string subcommand);

Subcommand add_info(CLI::App& parent);
Subcommand add_align(CLI::App& parent, align::AlignMode mode);
Subcommand add_align_merge(CLI::App& parent);
Subcommand add_align_db(CLI::App& parent);
Subcommand add_embed(CLI::App& parent);
Subcommand add_kmer_count(CLI::App& parent);
Subcommand add_bwt(CLI::App& parent);
Subcommand add_fastq_trim(CLI::App& parent);

}  // namespace seqfuse::cli
