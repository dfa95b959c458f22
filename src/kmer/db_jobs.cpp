#include "kmer/db_jobs.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "io/batch.hpp"
#include "io/compressed_input.hpp"
#include "io/fasta_text.hpp"
#include "io/fastq_text.hpp"
#include "io/record_text.hpp"
#include "kmer/count_filter.hpp"
#include "kmer/kmer_db.hpp"
#include "kmer/kmer_text.hpp"

namespace seqfuse::kmer {
namespace {

// A k-mer to look up: its letters, and where it came from (for errors).
using Query = std::pair<std::string, std::string>;

// The whole of a -f input, read once: stdin, a pipe or a process
// substitution cannot be opened a second time to parse what a first look
// found. Plain, gzip or BGZF, as every sequence input.
std::string read_whole(const std::string& path) {
  io::CompressedInput input(path);
  std::string text;
  constexpr std::size_t kStep = std::size_t{1} << 20;
  for (;;) {
    const std::size_t at = text.size();
    text.resize(at + kStep);
    const std::size_t got = input.read(text.data() + at, kStep);
    text.resize(at + got);
    if (got == 0) return text;
  }
}

// The arguments, then those of the file (FASTA/FASTQ records or plain
// lines, one k-mer each), told apart by the file's first byte that is not
// white space.
std::vector<Query> gather_queries(const QueryOptions& options) {
  std::vector<Query> queries;
  for (const std::string& kmer : options.kmers) queries.emplace_back(kmer, "argument");
  if (options.file.empty()) return queries;
  register_input(options.file);
  const std::string text = read_whole(options.file);
  const std::string name = options.file == "-" ? std::string("stdin") : options.file;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return queries;
  if (text[first] == '>' || text[first] == '@') {
    const std::string_view records = std::string_view(text).substr(first);
    io::SequenceBatch batch;
    try {
      if (text[first] == '>')
        io::parse_fasta_text(records, batch);
      else
        io::parse_fastq_text(records, batch);
    } catch (const io::RecordSyntaxError& bad) {
      throw Error(name + ": record " + std::to_string(batch.size() + 1) + ": " + bad.what);
    }
    for (std::size_t n = 0; n < batch.size(); ++n)
      queries.emplace_back(std::string(batch.sequence(n)),
                           name + " record " + std::to_string(n + 1));
    return queries;
  }
  io::TextLines lines(text);
  std::string_view line;
  for (std::size_t n = 1; lines.take_lines(&line, 1) == 1; ++n) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (!line.empty()) queries.emplace_back(std::string(line), name + " line " + std::to_string(n));
  }
  return queries;
}

// The database read and the text written, for --json (docs/json-report.md).
void database_facts(RunFacts& facts, const std::string& db, const std::string& output) {
  facts.input(db);
  facts.output(output);
}

// The one phase of a database job, its rate, and the host it ran on (these
// jobs have no GPU engine, and their reads are single-threaded).
void finish_facts(RunFacts& facts, const char* phase, std::uint64_t kmers, double seconds) {
  facts.phase(phase);
  facts.device(DeviceChoice{}, 1);
  facts.throughput(static_cast<double>(kmers), seconds, "k-mers/s");
}

}  // namespace

std::uint64_t run_dump_job(const DumpOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  if (options.upper_count < options.lower_count)
    throw UsageError("-U/--upper-count must be at least -L/--lower-count");
  const KmerDb db(options.db);
  OutputFile out(options.output, OutputKind::text);
  database_facts(report.facts(), options.db, options.output);
  CountFilter filter(options.lower_count, options.upper_count);
  std::string text;
  std::uint64_t written = 0;
  db.for_each_block([&](const RecordBlock& block) {
    const RecordBlock kept = filter.apply(block);
    text.clear();
    append_dump_lines(kept, text);
    out.write(text);
    written += kept.size;
  });
  out.commit();
  const double seconds = clock.seconds();
  report.summary(std::to_string(written) + " k-mers dumped", seconds);
  finish_facts(report.facts(), "dump", db.size(), seconds);
  report.facts().count("kmers_written", written);
  return written;
}

std::uint64_t run_histo_job(const HistoOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  validate(options.params);
  const KmerDb db(options.db);
  OutputFile out(options.output, OutputKind::text);
  database_facts(report.facts(), options.db, options.output);
  CountHistogram histogram;
  db.for_each_block([&](const RecordBlock& block) { histogram.add(block); });
  out.write(histogram.jellyfish_text(options.params));
  out.commit();
  const double seconds = clock.seconds();
  report.summary(std::to_string(histogram.distinct()) + " k-mers in the histogram", seconds);
  finish_facts(report.facts(), "histo", db.size(), seconds);
  report.facts().count("kmers_distinct", histogram.distinct());
  return histogram.distinct();
}

std::size_t run_query_job(const QueryOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  if (options.kmers.empty() && options.file.empty())
    throw UsageError("query: give k-mers as arguments or --file FILE");
  const KmerDb db(options.db);
  const int k = db.info().k;
  const std::vector<Query> queries = gather_queries(options);
  OutputFile out(options.output, OutputKind::text);
  database_facts(report.facts(), options.db, options.output);
  if (!options.file.empty()) report.facts().input(options.file);
  std::string text;
  for (const auto& [letters, where] : queries) {
    std::uint64_t words[2] = {0, 0};
    if (letters.size() != static_cast<std::size_t>(k))
      throw Error("query '" + letters + "' (" + where + ") has " + std::to_string(letters.size()) +
                  " letters; the database holds " + std::to_string(k) + "-mers");
    if (!parse_kmer(letters, k, words))
      throw Error("query '" + letters + "' (" + where + ") holds a letter other than A, C, G, T");
    if (db.info().canonical) canonicalize(words, k);
    // Printed as Jellyfish's query prints it: the k-mer as stored (canonical form).
    const std::size_t at = text.size();
    text.resize(at + static_cast<std::size_t>(k));
    format_kmer(words, k, text.data() + at);
    text += ' ';
    text += std::to_string(db.count_of(words));
    text += '\n';
  }
  out.write(text);
  out.commit();
  const double seconds = clock.seconds();
  report.summary(std::to_string(queries.size()) + " k-mer(s) looked up", seconds);
  finish_facts(report.facts(), "query", queries.size(), seconds);
  report.facts().count("kmers_queried", queries.size());
  return queries.size();
}

KmerStats run_stats_job(const StatsOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  if (options.upper_count < options.lower_count)
    throw UsageError("-U/--upper-count must be at least -L/--lower-count");
  const KmerDb db(options.db);
  OutputFile out(options.output, OutputKind::text);
  database_facts(report.facts(), options.db, options.output);
  CountFilter filter(options.lower_count, options.upper_count);
  KmerStats stats;
  db.for_each_block([&](const RecordBlock& block) {
    const RecordBlock kept = filter.apply(block);
    for (std::size_t i = 0; i < kept.size; ++i) {
      const std::uint32_t count = kept.counts[i];
      stats.unique += count == 1 ? 1 : 0;
      stats.total += count;
      stats.max_count = std::max<std::uint64_t>(stats.max_count, count);
    }
    stats.distinct += kept.size;
  });
  out.write(stats_text(stats));
  out.commit();
  const double seconds = clock.seconds();
  report.summary(std::to_string(stats.distinct) + " distinct k-mers, " +
                     std::to_string(stats.total) + " in all",
                 seconds);
  RunFacts& facts = report.facts();
  finish_facts(facts, "stats", db.size(), seconds);
  facts.count("unique", stats.unique);
  facts.count("distinct", stats.distinct);
  facts.count("total", stats.total);
  facts.count("max_count", stats.max_count);
  return stats;
}

std::string stats_text(const KmerStats& stats) {
  // jellyfish stats' layout: the label, padded to 11 characters, then the number.
  return "Unique:    " + std::to_string(stats.unique) +
         "\nDistinct:  " + std::to_string(stats.distinct) +
         "\nTotal:     " + std::to_string(stats.total) +
         "\nMax_count: " + std::to_string(stats.max_count) + "\n";
}

}  // namespace seqfuse::kmer
