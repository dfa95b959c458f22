// seqfuse kmer-count: k-mer counting with Jellyfish's counts, histogram and
// dump (CPU or GPU engine), and the dump/histo/query commands that read a
// saved k-mer database.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/quick_exit.hpp"
#include "core/report.hpp"
#include "io/sequence_reader.hpp"
#include "kmer/count_job.hpp"
#include "kmer/gpu_engine.hpp"
#include "kmer/histogram.hpp"
#include "kmer/kmer_db.hpp"
#include "kmer/kmer_text.hpp"
#include "cli/subcommand.hpp"

namespace seqfuse::cli {
namespace {

using kmer::CountOptions;

constexpr double kBytesPerGB = 1024.0 * 1024.0 * 1024.0;

// Half the machine's memory, as KMC and Jellyfish users expect a counter to
// take a large share of it without asking.
double default_max_memory_gb() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 4.0;
  return static_cast<double>(pages) * static_cast<double>(page) / 2.0 / kBytesPerGB;
}

struct CountConfig {
  CommonOptions common;
  std::optional<int> k;
  bool canonical = true;
  std::uint64_t lower = 1;
  std::uint64_t upper = UINT32_MAX;
  double max_memory_gb = default_max_memory_gb();
  std::string db, histo, dump, tmp_dir;
  std::vector<std::string> inputs;
};

struct DumpConfig {
  std::string db;
  std::string output = "-";
  std::uint64_t lower = 1;
  std::uint64_t upper = UINT32_MAX;
  bool quiet = false;
};

struct HistoConfig {
  std::string db;
  std::string output = "-";
  kmer::HistoParams params;
  bool quiet = false;
};

struct QueryConfig {
  std::string db;
  std::vector<std::string> kmers;
  std::string file;
  std::string output = "-";
  bool quiet = false;
};

std::uint32_t count_bound(std::uint64_t value, const char* option) {
  if (value < 1 || value > UINT32_MAX)
    throw UsageError(std::string(option) + " must be from 1 to 4294967295");
  return static_cast<std::uint32_t>(value);
}

int run_count(const CountConfig& config) {
  Stopwatch clock;
  Reporter report("kmer-count", config.common.quiet);
  if (!config.k) throw UsageError("-k K is required (1 to 63)");
  if (config.inputs.empty())
    throw UsageError("no INPUT given (a FASTA/FASTQ file, or - for stdin)");
  CountOptions options;
  options.k = *config.k;
  options.canonical = config.canonical;
  options.lower_count = count_bound(config.lower, "-L/--lower-count");
  options.upper_count = count_bound(config.upper, "-U/--upper-count");
  if (!(config.max_memory_gb > 0) ||
      config.max_memory_gb * kBytesPerGB < static_cast<double>(kmer::kMinMaxMemory))
    throw UsageError("-m/--max-memory must be at least 0.05 (GB)");
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
    options.choose_device = [&config, device_kind] {
      DeviceChoice device = choose_device(config.common);
      trace("kmer-count: device chosen");
      if (device.gpu && !kmer::gpu_engine_compiled()) {
        if (device_kind == DeviceSpec::Kind::kGpu)
          throw Error("--device gpu: this build has no GPU k-mer engine");
        device = {};
      }
      return device;
    };
  }

  const kmer::CountStats stats = kmer::run_count_job(options, report);

  const double seconds = clock.seconds();
  const auto kmers = static_cast<double>(stats.totals.total_kmers);
  std::string what = std::to_string(stats.reads) + " reads, " +
                     si_number(static_cast<double>(stats.bases)) + "bp, " + si_number(kmers) +
                     " k-mers (k=" + std::to_string(options.k) +
                     (options.canonical ? ", canonical" : ", both strands") + "), " +
                     si_number(static_cast<double>(stats.totals.distinct)) + " distinct";
  if (options.lower_count > 1 || options.upper_count < UINT32_MAX)
    what += ", " + si_number(static_cast<double>(stats.kept)) + " kept by -L/-U";
  if (stats.spilled_runs > 0)
    what += ", " + std::to_string(stats.runs) + " runs (" + std::to_string(stats.spilled_runs) +
            " spilled)";
  what += " on " + stats.device.name();
  report.summary(what, seconds,
                 si_number(seconds > 0 ? kmers / seconds : 0.0) + " k-mers/s, " +
                     rate(static_cast<double>(stats.bases), seconds, "bp"));
  return 0;
}

int run_dump(const DumpConfig& config) {
  Stopwatch clock;
  Reporter report("kmer-count", config.quiet);
  const std::uint32_t lower = count_bound(config.lower, "-L/--lower-count");
  const std::uint32_t upper = count_bound(config.upper, "-U/--upper-count");
  if (upper < lower) throw UsageError("-U/--upper-count must be at least -L/--lower-count");
  const kmer::KmerDb db(config.db);
  OutputFile out(config.output);
  std::string text;
  std::vector<std::uint64_t> words;
  std::vector<std::uint32_t> counts;
  std::uint64_t written = 0;
  db.for_each_block([&](const kmer::RecordBlock& block) {
    kmer::RecordBlock kept = block;
    if (lower > 1 || upper < UINT32_MAX) {
      const std::size_t w = static_cast<std::size_t>(block.words_per_kmer());
      words.clear();
      counts.clear();
      for (std::size_t i = 0; i < block.size; ++i) {
        if (block.counts[i] < lower || block.counts[i] > upper) continue;
        words.insert(words.end(), block.kmer(i), block.kmer(i) + w);
        counts.push_back(block.counts[i]);
      }
      kept = {block.k, words.data(), counts.data(), counts.size()};
    }
    text.clear();
    kmer::append_dump_lines(kept, text);
    out.write(text);
    written += kept.size;
  });
  out.commit();
  report.summary(std::to_string(written) + " k-mers dumped", clock.seconds());
  return 0;
}

int run_histo(const HistoConfig& config) {
  Stopwatch clock;
  Reporter report("kmer-count", config.quiet);
  kmer::validate(config.params);
  const kmer::KmerDb db(config.db);
  OutputFile out(config.output);
  kmer::CountHistogram histogram;
  db.for_each_block([&](const kmer::RecordBlock& block) { histogram.add(block); });
  out.write(histogram.jellyfish_text(config.params));
  out.commit();
  report.summary(std::to_string(histogram.distinct()) + " k-mers in the histogram",
                 clock.seconds());
  return 0;
}

// The k-mers to look up: the arguments, then those of --file (FASTA/FASTQ
// records or plain lines, one k-mer each).
std::vector<std::pair<std::string, std::string>> gather_queries(const QueryConfig& config) {
  std::vector<std::pair<std::string, std::string>> queries;  // letters, where it came from
  for (const std::string& kmer : config.kmers) queries.emplace_back(kmer, "argument");
  if (config.file.empty()) return queries;
  std::ifstream peek(config.file);
  if (!peek && config.file != "-")
    throw Error("cannot open '" + config.file + "': no such file or not readable");
  char first = 0;
  peek >> first;  // skips leading white space
  if (config.file == "-" || first == '>' || first == '@' || !peek) {
    io::SequenceReader reader(config.file);
    io::SequenceRecord record;
    for (std::size_t n = 1; reader.next(record); ++n)
      queries.emplace_back(record.seq, config.file + " record " + std::to_string(n));
    return queries;
  }
  std::ifstream in(config.file);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    if (!line.empty()) queries.emplace_back(line, config.file + " line " + std::to_string(n));
  }
  return queries;
}

int run_query(const QueryConfig& config) {
  Stopwatch clock;
  Reporter report("kmer-count", config.quiet);
  if (config.kmers.empty() && config.file.empty())
    throw UsageError("query: give k-mers as arguments or --file FILE");
  const kmer::KmerDb db(config.db);
  const int k = db.info().k;
  const auto queries = gather_queries(config);
  OutputFile out(config.output);
  std::string text;
  for (const auto& [letters, where] : queries) {
    std::uint64_t words[2] = {0, 0};
    if (letters.size() != static_cast<std::size_t>(k))
      throw Error("query '" + letters + "' (" + where + ") has " + std::to_string(letters.size()) +
                  " letters; the database holds " + std::to_string(k) + "-mers");
    if (!kmer::parse_kmer(letters, k, words))
      throw Error("query '" + letters + "' (" + where + ") holds a letter other than A, C, G, T");
    if (db.info().canonical) kmer::canonicalize(words, k);
    // Printed as Jellyfish's query prints it: the k-mer as stored (canonical form).
    const std::size_t at = text.size();
    text.resize(at + static_cast<std::size_t>(k));
    kmer::format_kmer(words, k, text.data() + at);
    text += ' ';
    text += std::to_string(db.count_of(words));
    text += '\n';
  }
  out.write(text);
  out.commit();
  report.summary(std::to_string(queries.size()) + " k-mer(s) looked up", clock.seconds());
  return 0;
}

void add_count_bounds(CLI::App& app, std::uint64_t& lower, std::uint64_t& upper) {
  app.add_option("-L,--lower-count", lower, "Keep k-mers counted at least N times (dump, DB)")
      ->type_name("N");
  app.add_option("-U,--upper-count", upper, "Keep k-mers counted at most N times (dump, DB)")
      ->type_name("N");
}

}  // namespace

Subcommand add_kmer_count(CLI::App& parent) {
  auto count = std::make_shared<CountConfig>();
  auto dump = std::make_shared<DumpConfig>();
  auto histo = std::make_shared<HistoConfig>();
  auto query = std::make_shared<QueryConfig>();
  CLI::App* app = parent.add_subcommand(
      "kmer-count", "Count k-mers (canonical by default): Jellyfish's counts, histo and dump");
  app->footer(
      "Usage:\n"
      "  seqfuse kmer-count -k K [options] INPUT...    FASTA/FASTQ, gz, or - for stdin\n"
      "  seqfuse kmer-count dump|histo|query DB ...   read a saved database\n"
      "Examples:\n"
      "  seqfuse kmer-count -k 21 R1.fq.gz R2.fq.gz --histo reads.histo   GenomeScope input\n"
      "  seqfuse kmer-count -k 31 -t 8 reads.fq -o reads.kdb -L 2      database of k-mers seen "
      "twice\n"
      "  seqfuse kmer-count -k 25 --no-canonical genome.fa --dump -    every strand's k-mers\n"
      "  seqfuse kmer-count dump reads.kdb -o reads.tsv\n"
      "  seqfuse kmer-count histo reads.kdb --high 1000\n"
      "  seqfuse kmer-count query reads.kdb ACGTACGTACGTACGTACGTACGTACGTACG\n"
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
  add_threads_option(*app, count->common);
  add_device_option(*app, count->common);
  add_quiet_option(*app, count->common);

  CLI::App* dump_app = app->add_subcommand("dump", "Print a database as \"KMER COUNT\" lines");
  dump_app->add_option("DB", dump->db, "k-mer database (-o of kmer-count)")->required();
  dump_app->add_option("-o,--output", dump->output, "Output path, - for stdout")
      ->capture_default_str();
  add_count_bounds(*dump_app, dump->lower, dump->upper);
  dump_app->add_flag("-q,--quiet", dump->quiet, "No summary on stderr");
  dump_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count dump reads.kdb > reads.tsv         as jellyfish dump -c, sorted\n"
      "  seqfuse kmer-count dump reads.kdb -L 2 -U 100 -o mid.tsv");

  CLI::App* histo_app =
      app->add_subcommand("histo", "Print a database's histogram as jellyfish histo does");
  histo_app->add_option("DB", histo->db, "k-mer database (-o of kmer-count)")->required();
  histo_app->add_option("-o,--output", histo->output, "Output path, - for stdout")
      ->capture_default_str();
  histo_app->add_option("-l,--low", histo->params.low, "Low count value (jellyfish -l)")
      ->capture_default_str();
  histo_app->add_option("--high", histo->params.high, "High count value (jellyfish -h)")
      ->capture_default_str();
  histo_app->add_option("-i,--increment", histo->params.increment, "Bucket width (jellyfish -i)")
      ->capture_default_str();
  histo_app->add_flag("-f,--full", histo->params.full, "Also print empty buckets");
  histo_app->add_flag("-q,--quiet", histo->quiet, "No summary on stderr");
  histo_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count histo reads.kdb > reads.histo      as jellyfish histo\n"
      "  seqfuse kmer-count histo reads.kdb --low 2 --high 500 --increment 5");

  CLI::App* query_app = app->add_subcommand(
      "query", "Print \"KMER COUNT\" for given k-mers (canonical form when the DB is)");
  query_app->add_option("DB", query->db, "k-mer database (-o of kmer-count)")->required();
  query_app->add_option("KMER", query->kmers, "k-mers to look up");
  query_app
      ->add_option("-f,--file", query->file,
                   "More k-mers: FASTA/FASTQ (one per record) or one per line")
      ->type_name("FILE");
  query_app->add_option("-o,--output", query->output, "Output path, - for stdout")
      ->capture_default_str();
  query_app->add_flag("-q,--quiet", query->quiet, "No summary on stderr");
  query_app->footer(
      "Examples:\n"
      "  seqfuse kmer-count query reads.kdb ACGTACGTACGTACGTACGTA TTTTTTTTTTTTTTTTTTTTT\n"
      "  seqfuse kmer-count query reads.kdb -f kmers.txt        one k-mer per line (or FASTA)\n"
      "A k-mer that is not in the database prints with count 0.");

  return {app, [=] {
            if (dump_app->parsed()) return run_dump(*dump);
            if (histo_app->parsed()) return run_histo(*histo);
            if (query_app->parsed()) return run_query(*query);
            return run_count(*count);
          }};
}

}  // namespace seqfuse::cli
