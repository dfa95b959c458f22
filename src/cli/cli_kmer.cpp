// seqfuse kmer-count: k-mer counting with Jellyfish's counts, histogram and
// dump (CPU or GPU engine), and the dump/histo/query commands that read a
// saved k-mer database. Options and their checks only; the jobs are
// src/kmer/count_job.hpp and src/kmer/db_jobs.hpp.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/subcommand.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/quick_exit.hpp"
#include "core/report.hpp"
#include "kmer/count_job.hpp"
#include "kmer/db_jobs.hpp"

namespace seqfuse::cli {
namespace {

struct CountConfig {
  CommonOptions common;
  std::optional<int> k;
  bool canonical = true;
  std::uint64_t lower = 1;
  std::uint64_t upper = UINT32_MAX;
  double max_memory_gb = static_cast<double>(default_max_memory()) / kBytesPerGB;
  std::string db, histo, dump, tmp_dir;
  std::vector<std::string> inputs;
};

struct DumpConfig {
  kmer::DumpOptions options;  // its -L/-U are set from lower and upper once checked
  std::uint64_t lower = 1;
  std::uint64_t upper = UINT32_MAX;
  bool quiet = false;
  std::string json;
};

struct HistoConfig {
  kmer::HistoOptions options;
  bool quiet = false;
  std::string json;
};

struct QueryConfig {
  kmer::QueryOptions options;
  bool quiet = false;
  std::string json;
};

struct StatsConfig {
  kmer::StatsOptions options;  // its -L/-U are set from lower and upper once checked
  std::uint64_t lower = 1;
  std::uint64_t upper = UINT32_MAX;
  bool quiet = false;
  std::string json;
};

// An output that goes to stdout: --json - cannot share it.
bool is_stdout(const std::string& path) {
  return names_stdout(path);
}

// -m as the user wrote it, more or less: 500000, 0.5, 1e+12.
std::string format_gb(double gb) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", gb);
  return text;
}

std::uint32_t count_bound(std::uint64_t value, const char* option) {
  if (value < 1 || value > UINT32_MAX)
    throw UsageError(std::string(option) + " must be from 1 to 4294967295");
  return static_cast<std::uint32_t>(value);
}

int run_count(const CountConfig& config) {
  Reporter report("kmer-count", config.common.quiet);
  if (!config.k) throw UsageError("-k K is required (1 to 63)");
  if (config.inputs.empty())
    throw UsageError("no INPUT given (a FASTA/FASTQ file, or - for stdin)");
  kmer::CountOptions options;
  options.k = *config.k;
  options.canonical = config.canonical;
  options.lower_count = count_bound(config.lower, "-L/--lower-count");
  options.upper_count = count_bound(config.upper, "-U/--upper-count");
  if (!(config.max_memory_gb > 0) ||
      config.max_memory_gb * kBytesPerGB < static_cast<double>(kmer::kMinMaxMemory))
    throw UsageError("-m/--max-memory must be at least 0.05 (GB)");
  // A cap above the machine's memory (-m 5e5) used to fail late as a bare
  // "out of host memory".
  if (const std::size_t host = host_memory_bytes();
      host != 0 && config.max_memory_gb * kBytesPerGB > static_cast<double>(host))
    throw UsageError("-m/--max-memory " + format_gb(config.max_memory_gb) +
                     " GB is more than this machine's memory (" + memory_size(host) + ")");
  options.max_memory = static_cast<std::size_t>(config.max_memory_gb * kBytesPerGB);
  options.threads = resolve_threads(config.common.threads);
  options.exits_after = kQuickExit;
  options.inputs = config.inputs;
  options.db_path = config.db;
  options.histo_path = config.histo;
  options.dump_path = config.dump;
  options.spill_dir = config.tmp_dir;
  trace("kmer-count: options read");
  const DeviceSpec::Kind device_kind = parse_device_spec(config.common.device).kind;
  if (device_kind != DeviceSpec::Kind::kCpu) {
    options.choose_device = [&config] { return choose_device(config.common); };
    options.gpu_required = device_kind == DeviceSpec::Kind::kGpu;
  }
  JsonReport json(config.common.json,
                  is_stdout(config.db) || is_stdout(config.histo) || is_stdout(config.dump));
  (void)kmer::run_count_job(options, report);
  json.write(report_source("kmer-count"), report.facts());
  return 0;
}

// A database sub-action (`job` over `options`) with its --json report,
// refused up front when the report and the output would share stdout.
template <class Options, class Job>
int run_db_action(const char* action, bool quiet, const std::string& json_path,
                  const Options& options, Job job) {
  Reporter report("kmer-count", quiet);
  JsonReport json(json_path, is_stdout(options.output));
  (void)job(options, report);
  json.write(report_source(std::string("kmer-count ") + action), report.facts());
  return 0;
}

int run_dump(const DumpConfig& config) {
  kmer::DumpOptions options = config.options;
  options.lower_count = count_bound(config.lower, "-L/--lower-count");
  options.upper_count = count_bound(config.upper, "-U/--upper-count");
  return run_db_action("dump", config.quiet, config.json, options, kmer::run_dump_job);
}

int run_histo(const HistoConfig& config) {
  return run_db_action("histo", config.quiet, config.json, config.options, kmer::run_histo_job);
}

int run_query(const QueryConfig& config) {
  return run_db_action("query", config.quiet, config.json, config.options, kmer::run_query_job);
}

int run_stats(const StatsConfig& config) {
  kmer::StatsOptions options = config.options;
  options.lower_count = count_bound(config.lower, "-L/--lower-count");
  options.upper_count = count_bound(config.upper, "-U/--upper-count");
  return run_db_action("stats", config.quiet, config.json, options, kmer::run_stats_job);
}

// `verb` says what the bounds do: "Keep" (the dump, the database), "Only" (stats).
void add_count_bounds(CLI::App& app, std::uint64_t& lower, std::uint64_t& upper,
                      const std::string& verb = "Keep", const std::string& where = " (dump, DB)") {
  app.add_option("-L,--lower-count", lower, verb + " k-mers counted at least N times" + where)
      ->type_name("N");
  app.add_option("-U,--upper-count", upper, verb + " k-mers counted at most N times" + where)
      ->type_name("N");
}

}  // namespace

Subcommand add_kmer_count(CLI::App& parent) {
  auto count = std::make_shared<CountConfig>();
  auto dump = std::make_shared<DumpConfig>();
  auto histo = std::make_shared<HistoConfig>();
  auto query = std::make_shared<QueryConfig>();
  auto stats = std::make_shared<StatsConfig>();
  CLI::App* app = parent.add_subcommand(
      "kmer-count", "Count k-mers (canonical by default): Jellyfish's counts, histo and dump");
  app->footer(
      "Usage:\n"
      "  seqfuse kmer-count -k K [options] INPUT...    FASTA/FASTQ, gz, or - for stdin\n"
      "  seqfuse kmer-count dump|histo|query|stats DB ...   read a saved database\n"
      "Examples:\n"
      "  seqfuse kmer-count -k 21 R1.fq.gz R2.fq.gz --histo reads.histo   GenomeScope input\n"
      "  seqfuse kmer-count -k 31 -t 8 reads.fq -o reads.kdb -L 2      database of k-mers seen "
      "twice\n"
      "  seqfuse kmer-count -k 25 --no-canonical genome.fa --dump -    every strand's k-mers\n"
      "  seqfuse kmer-count dump reads.kdb -o reads.tsv\n"
      "  seqfuse kmer-count histo reads.kdb --high 1000\n"
      "  seqfuse kmer-count query reads.kdb ACGTACGTACGTACGTACGTACGTACGTACG\n"
      "  seqfuse kmer-count stats reads.kdb                as jellyfish stats\n"
      "Counts, histogram and dump equal Jellyfish 2's (jellyfish count -C; histo; dump -c,\n"
      "sorted). Lowercase counts as uppercase; N and other letters break k-mers. -L/-U\n"
      "filter the dump and the database, not --histo. Counts stop at 4294967295 (with a\n"
      "warning). The database format is documented in docs/kmer-db.md.");
  app->require_subcommand(0, 1);
  app->add_option("INPUT", count->inputs, "FASTA/FASTQ inputs (plain, gzip, - for stdin)");
  app->add_option("-k,--kmer-length", count->k, "k-mer length K, 1 to 63")->type_name("K");
  app->add_flag("-C,--canonical,!--no-canonical", count->canonical,
                "Count a k-mer and its reverse complement together (default; "
                "--no-canonical counts strands apart)");
  add_count_bounds(*app, count->lower, count->upper);
  app->add_option("-m,--max-memory", count->max_memory_gb,
                  "Memory cap in GB (2^30 bytes, at least 0.05; default half the RAM): k-mer "
                  "runs beyond it spill to disk; the GPU engine uses at most this much device "
                  "memory")
      ->type_name("GB");
  app->add_option("-o,--output", count->db, "Write a k-mer database (docs/kmer-db.md)")
      ->type_name("DB");
  app->add_option("--histo", count->histo, "Write the Jellyfish histo text (- for stdout)")
      ->type_name("FILE");
  app->add_option("--dump", count->dump, "Write \"KMER COUNT\" lines, sorted (- for stdout)")
      ->type_name("FILE");
  app->add_option("--tmp-dir", count->tmp_dir,
                  "Folder for spilled runs (default: the folder of -o, else $TMPDIR, else /tmp)")
      ->type_name("DIR");
  add_compress_options(*app);  // --histo, --dump (the database stays binary)
  add_threads_option(*app, count->common);
  add_device_option(*app, count->common);
  add_quiet_option(*app, count->common);
  add_json_option(*app, count->common.json);

  CLI::App* dump_app = app->add_subcommand("dump", "Print a database as \"KMER COUNT\" lines");
  dump_app->add_option("DB", dump->options.db, "k-mer database (-o of kmer-count)")->required();
  dump_app->add_option("-o,--output", dump->options.output, "Output path, - for stdout")
      ->capture_default_str();
  add_count_bounds(*dump_app, dump->lower, dump->upper);
  dump_app->add_flag("-q,--quiet", dump->quiet, "No summary on stderr");
  add_json_option(*dump_app, dump->json);
  add_compress_options(*dump_app);
  dump_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count dump reads.kdb > reads.tsv         as jellyfish dump -c, sorted\n"
      "  seqfuse kmer-count dump reads.kdb -L 2 -U 100 -o mid.tsv");

  CLI::App* histo_app =
      app->add_subcommand("histo", "Print a database's histogram as jellyfish histo does");
  histo_app->add_option("DB", histo->options.db, "k-mer database (-o of kmer-count)")->required();
  histo_app->add_option("-o,--output", histo->options.output, "Output path, - for stdout")
      ->capture_default_str();
  histo_app->add_option("-l,--low", histo->options.params.low, "Low count value (jellyfish -l)")
      ->capture_default_str();
  histo_app->add_option("--high", histo->options.params.high, "High count value (jellyfish -h)")
      ->capture_default_str();
  histo_app
      ->add_option("-i,--increment", histo->options.params.increment, "Bucket width (jellyfish -i)")
      ->capture_default_str();
  histo_app->add_flag("-f,--full", histo->options.params.full, "Also print empty buckets");
  histo_app->add_flag("-q,--quiet", histo->quiet, "No summary on stderr");
  add_json_option(*histo_app, histo->json);
  add_compress_options(*histo_app);
  histo_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count histo reads.kdb > reads.histo      as jellyfish histo\n"
      "  seqfuse kmer-count histo reads.kdb --low 2 --high 500 --increment 5");

  CLI::App* query_app = app->add_subcommand(
      "query", "Print \"KMER COUNT\" for given k-mers (canonical form when the DB is)");
  query_app->add_option("DB", query->options.db, "k-mer database (-o of kmer-count)")->required();
  query_app->add_option("KMER", query->options.kmers, "k-mers to look up");
  query_app
      ->add_option("-f,--file", query->options.file,
                   "More k-mers: FASTA/FASTQ (one per record) or one per line")
      ->type_name("FILE");
  query_app->add_option("-o,--output", query->options.output, "Output path, - for stdout")
      ->capture_default_str();
  query_app->add_flag("-q,--quiet", query->quiet, "No summary on stderr");
  add_json_option(*query_app, query->json);
  add_compress_options(*query_app);
  query_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count query reads.kdb ACGTACGTACGTACGTACGTA TTTTTTTTTTTTTTTTTTTTT\n"
      "  seqfuse kmer-count query reads.kdb -f kmers.txt        one k-mer per line (or FASTA)\n"
      "A k-mer that is not in the database prints with count 0.");

  CLI::App* stats_app = app->add_subcommand(
      "stats", "Print Unique, Distinct, Total and Max_count as jellyfish stats does");
  stats_app->add_option("DB", stats->options.db, "k-mer database (-o of kmer-count)")->required();
  stats_app->add_option("-o,--output", stats->options.output, "Output path, - for stdout")
      ->capture_default_str();
  add_count_bounds(*stats_app, stats->lower, stats->upper, "Only", " (jellyfish stats -L/-U)");
  stats_app->add_flag("-q,--quiet", stats->quiet, "No summary on stderr");
  add_json_option(*stats_app, stats->json);
  add_compress_options(*stats_app);
  stats_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count stats reads.kdb                    as jellyfish stats\n"
      "  seqfuse kmer-count stats reads.kdb -L 2 --json s.json  k-mers seen twice or more\n"
      "The numbers are over the k-mers DB holds: a database written with -L/-U holds only\n"
      "those, as jellyfish's does.");

  return {app, [=] {
            if (dump_app->parsed()) return run_dump(*dump);
            if (stats_app->parsed()) return run_stats(*stats);
            if (histo_app->parsed()) return run_histo(*histo);
            if (query_app->parsed()) return run_query(*query);
            return run_count(*count);
          }};
}

}  // namespace seqfuse::cli
