#include "align/align_run.hpp"

#include <filesystem>
#include <future>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "align/align_inputs.hpp"
#include "align/align_job.hpp"
#include "align/output_format.hpp"
#include "align/strand.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"

namespace seqfuse::align {
namespace {

// One long pair keeps one GPU thread block busy while the rest of the device
// idles: 70 Mbp against 32 bases (align-nw) took 20 s on an H200 and 0.85 s
// on its 16 CPU cores. Work of fewer pairs than a GPU has multiprocessors,
// one of them over a million residues long, goes to the CPU engine.
constexpr std::uint64_t kFewPairs = 128;
constexpr std::size_t kLongResidues = std::size_t{1} << 20;

bool few_long_pairs(const AlignJob& job, const EncodedSequences& queries,
                    const EncodedSequences& against) {
  const std::uint64_t pairs = job.layout == PairLayout::pairs
                                  ? queries.size()
                                  : std::uint64_t{queries.size()} * against.size();
  if (pairs >= kFewPairs) return false;
  for (const EncodedSequences* set : {&queries, &against})
    for (std::size_t i = 0; i < set->size(); ++i)
      if ((*set)[i].size() > kLongResidues) return true;
  return false;
}

// The counts of docs/json-report.md for align-sw / align-nw.
void count_facts(RunFacts& facts, std::size_t queries, std::size_t targets, const AlignStats& stats,
                 std::uint64_t alignments) {
  facts.count("queries", queries);
  facts.count("targets", targets);
  facts.count("pairs", stats.pairs);
  facts.count("cells", stats.cells);
  facts.count("alignments", alignments);
}

}  // namespace

AlignStats run_align(const AlignOptions& config, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  const OutputFormat format = parse_output_format(config.format);
  // The device is chosen on a thread of its own: a GPU's start-up overlaps
  // reading the input. Device problems are still reported before the input's.
  std::future<DeviceChoice> device_choice =
      config.choose_device ? std::async(std::launch::async, config.choose_device)
                           : std::async(std::launch::deferred, [] { return DeviceChoice{}; });
  std::optional<OutputFile> out_file;
  std::optional<AlignInputs> inputs;
  try {
    out_file.emplace(config.output,
                     OutputKind::text);  // created first: an unwritable path fails before work
    inputs.emplace(read_align_inputs(config, config.threads));
  } catch (...) {
    (void)device_choice.get();
    throw;
  }
  const DeviceChoice device = device_choice.get();
  trace("align: device chosen, sequences read and encoded");
  RunFacts& facts = report.facts();
  facts.input(config.query);
  if (!config.target.empty()) facts.input(config.target);
  // A --matrix file is an input; a built-in matrix name is not.
  if (!config.matrix.empty() && std::filesystem::is_regular_file(config.matrix))
    facts.input(config.matrix);
  facts.output(config.output);
  facts.phase("read");
  OutputFile& out = *out_file;
  const io::SequenceBatch& query_batch = inputs->query_batch;
  const bool two_files = !config.target.empty();
  const ScoringScheme& scheme = *inputs->scheme;
  const EncodedSequences& queries = inputs->queries;
  const EncodedSequences& targets = inputs->targets;
  const io::SequenceBatch& target_names = two_files ? inputs->target_batch : query_batch;
  const std::size_t target_first = inputs->target_first;  // --db-part: CSV numbers the whole file
  const Strand strand = parse_strand(config.strand);
  if (strand != Strand::plus && complement_codes(scheme).empty())
    throw Error("--strand " + config.strand + " aligns the reverse complement of DNA queries: " +
                "QUERY '" + (config.query == "-" ? std::string("stdin") : config.query) +
                "' is aligned as protein (matrix " + scheme.name() + ")");

  AlignJob job;
  job.mode = config.mode;
  job.layout = config.pairs ? PairLayout::pairs
               : two_files  ? PairLayout::search
                            : PairLayout::all_vs_all;
  job.top = static_cast<std::size_t>(config.top);
  job.traceback = config.traceback || needs_traceback(format);
  job.threads = config.threads;
  job.gpu = device.gpu && gpu_can_score(scheme);
  job.devices = device.devices;
  job.progress = [&report, total = query_batch.size()](std::size_t done) {
    report.progress(std::to_string(done) + " / " + std::to_string(total) + " queries");
  };
  if (job.gpu &&
      few_long_pairs(job, queries, job.layout == PairLayout::all_vs_all ? queries : targets)) {
    // --device gpu keeps the GPU it asked for; auto takes the faster engine.
    if (config.gpu_required) {
      report.warn(
          "fewer than " + std::to_string(kFewPairs) +
          " pairs with a sequence over 1 M residues: one GPU block scores each pair, so the "
          "CPU engine (--device cpu) is many times faster here");
    } else {
      job.gpu = false;
      report.warn(
          "fewer than " + std::to_string(kFewPairs) +
          " pairs with a sequence over 1 M residues: aligning on the CPU, many times faster "
          "for so few pairs than the GPU");
    }
  }
  if (device.gpu && !job.gpu && !gpu_can_score(scheme)) {
    if (config.gpu_required)
      throw Error("--device gpu: the GPU engine takes matrices of at most 32 letters; " +
                  scheme.name() + " has " + std::to_string(scheme.alphabet_size()));
    report.warn("matrix " + scheme.name() + " has more than 32 letters: aligning on the CPU");
  }

  AlignmentWriter writer(out, format, job.traceback, config.command_line);
  if (strand != Strand::plus) writer.add_strand_column();
  std::vector<AlignmentWriter::Reference> references;
  if (format == OutputFormat::sam) {
    for (std::size_t i = 0; i < target_names.size(); ++i)
      references.push_back({target_names.name(i), target_names.length(i)});
  }
  writer.begin(references);
  // An empty input (a scatter chunk, a sample filtered to nothing) is no
  // error: the output is the format's header alone, as for no hits.
  const bool no_query = query_batch.empty(), no_target = two_files && targets.size() == 0;
  if (no_query || no_target) {
    const std::string& path = no_query ? config.query : config.target;
    const std::string name = path == "-" ? std::string("stdin") : path;
    const std::string what = !no_query && !config.db_part.empty()
                                 ? "--db-part " + config.db_part + " of TARGET"
                                 : std::string(no_query ? "QUERY" : "TARGET");
    report.warn(what + " '" + name + "' has no sequences: the output holds no alignments");
    out.commit();
    count_facts(facts, query_batch.size(), two_files ? targets.size() : query_batch.size(), {}, 0);
    facts.phase("align");
    facts.device(DeviceChoice{}, config.threads);
    facts.throughput(0, 0, "cells/s");
    report.summary("0 pairs", clock.seconds());
    return {};
  }
  // Formatting 1 M lines takes longer than aligning them on a GPU: batches
  // of hits are formatted on all threads, in chunks written in order. A row
  // is a hit to write, or (SAM) the unmapped record of a query without one.
  struct Row {
    const AlignHit* hit;  // null: unmapped
    std::uint32_t query;
    bool secondary;
  };
  const bool sam = format == OutputFormat::sam;
  std::vector<Row> rows;
  std::uint32_t next_query = 0;  // SAM: queries before it have a record
  std::uint64_t alignments = 0;
  const auto write_rows = [&] {
    writer.write_batch(
        rows.size(),
        [&](std::size_t i) {
          const Row& row = rows[i];
          const AlignHit* hit = row.hit;
          const std::uint32_t target = hit != nullptr ? hit->target : 0;
          return AlignmentRecord{row.query,
                                 target_first + target,
                                 query_batch.name(row.query),
                                 hit != nullptr ? target_names.name(target) : std::string_view(),
                                 query_batch.sequence(row.query),
                                 query_batch.length(row.query),
                                 hit != nullptr ? target_names.length(target) : 0,
                                 hit != nullptr ? &hit->result : nullptr,
                                 hit != nullptr && hit->reverse,
                                 row.secondary,
                                 query_batch.quality(row.query)};
        },
        job.threads);
  };
  const auto write_hits = [&](std::span<const AlignHit> hits) {
    rows.clear();
    for (const AlignHit& hit : hits) {
      if (config.min_score && hit.result.score < *config.min_score) continue;
      bool secondary = false;
      if (sam) {
        // A hit without aligned columns (local score 0) is no alignment.
        if (hit.result.cigar.empty()) continue;
        while (next_query < hit.query) rows.push_back({nullptr, next_query++, false});
        secondary = hit.query < next_query;
        next_query = std::max(next_query, hit.query + 1);
      }
      rows.push_back({&hit, hit.query, secondary});
      ++alignments;
    }
    write_rows();
  };
  const AlignStats stats = run_stranded(job, strand, scheme, queries, targets, write_hits);
  if (sam) {  // queries after the last one with a hit
    rows.clear();
    while (next_query < query_batch.size()) rows.push_back({nullptr, next_query++, false});
    write_rows();
  }
  trace("align: aligned and written");
  out.commit();
  facts.phase("align");

  const double seconds = clock.seconds();
  std::string what = std::to_string(stats.pairs) + " pairs, " +
                     si_number(static_cast<double>(stats.cells)) + " cells on " +
                     (job.gpu ? device.name() : std::string("cpu"));
  std::string speed = per_second(static_cast<double>(stats.cells), seconds, "CUPS");
  if (job.gpu)
    speed +=
        "; device " + per_second(static_cast<double>(stats.cells), stats.device_seconds, "CUPS");
  report.summary(what, seconds, speed);
  count_facts(facts, query_batch.size(), two_files ? targets.size() : query_batch.size(), stats,
              alignments);
  facts.device(job.gpu ? device : DeviceChoice{}, config.threads);
  facts.throughput(static_cast<double>(stats.cells), seconds, "cells/s");
  return stats;
}

}  // namespace seqfuse::align
