#include "kmer/count_job.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/output_file.hpp"
#include "gpu/runtime.hpp"  // pinned host memory
#include "io/batch_reader.hpp"
#include "io/fastq_chunks.hpp"
#include "kmer/count_input.hpp"
#include "kmer/count_workers.hpp"
#include "kmer/cpu_engine.hpp"
#include "kmer/gpu_engine.hpp"
#include "kmer/histogram.hpp"
#include "kmer/kmer_db.hpp"
#include "kmer/merged_outputs.hpp"
#include "kmer/run_store.hpp"

namespace seqfuse::kmer {
namespace {

void validate(const CountOptions& o) {
  if (o.k < 1 || o.k > kMaxK)
    throw UsageError("-k must be from 1 to " + std::to_string(kMaxK) + ", not " +
                     std::to_string(o.k));
  if (o.lower_count < 1) throw UsageError("-L/--lower-count must be 1 or more");
  if (o.upper_count < o.lower_count)
    throw UsageError("-U/--upper-count must be at least -L/--lower-count");
  if (o.max_memory < kMinMaxMemory)
    throw UsageError(
        "-m/--max-memory must be at least 0.05 (GB); k-mer runs spill to disk "
        "beyond it");
  if (o.inputs.empty()) throw UsageError("no INPUT given");
  if (o.db_path.empty() && o.histo_path.empty() && o.dump_path.empty())
    throw UsageError("nothing to write: give -o DB, --histo FILE and/or --dump FILE");
  const int to_stdout = (o.db_path == "-") + (o.histo_path == "-") + (o.dump_path == "-");
  if (to_stdout > 1) throw UsageError("only one of -o, --histo and --dump can be - (stdout)");
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string choose_spill_dir(const CountOptions& o) {
  if (!o.spill_dir.empty()) return o.spill_dir;
  if (!o.db_path.empty() && o.db_path != "-") return folder_of(o.db_path);
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') return tmp;
  return "/tmp";
}

std::unique_ptr<OutputFile> open_output(const std::string& path, OutputKind kind) {
  return path.empty() ? nullptr : std::make_unique<OutputFile>(path, kind);
}

void count_batches(CountingEngine& engine, const std::string& input, std::size_t batch_bases,
                   CountStats& stats, Reporter& report) {
  io::BatchLimits limits;
  limits.max_bases = batch_bases;
  io::BatchReader reader(input, limits);
  bool any = false;
  while (io::SequenceBatch* batch = reader.next()) {
    any = any || !batch->empty();
    stats.reads += batch->size();
    stats.bases += batch->total_bases();
    engine.add(*batch);
    show_progress(stats, report);
  }
  if (!any) warn_empty(reader.display_name(), report);
}

// Whether this build (or a test's stand-in) has an engine for GPU workers.
bool gpu_workers_available(const CountOptions& options) {
  return gpu_engine_compiled() || options.gpu_workers.make;
}

// The device options.choose_device picks, when this build has a GPU engine
// for it; else the CPU, or an error when a GPU was required.
DeviceChoice choose_engine_device(const CountOptions& options) {
  DeviceChoice device = options.choose_device();
  trace("kmer-count: device chosen");
  if (device.gpu && !gpu_workers_available(options)) {
    if (options.gpu_required) throw Error("--device gpu: this build has no GPU k-mer engine");
    device = {};
  }
  return device;
}

// The engine's parameters from the options and the memory plan.
EngineParams engine_params(const CountOptions& options, const MemoryPlan& plan,
                           std::uint64_t input_kmers) {
  EngineParams params;
  params.k = options.k;
  params.canonical = options.canonical;
  params.threads = options.threads;
  params.memory_budget = plan.engine_budget;
  params.kmer_bound = input_kmers;
  params.tunables = options.tunables;
  return params;
}

// The two pinned buffers FASTQ text goes to the device through, in turn.
struct PinnedText {
  io::TextBuffer buffers[2] = {io::TextBuffer(gpu::pinned_resource()),
                               io::TextBuffer(gpu::pinned_resource())};
};

// The engine, made on a thread of its own: choosing a GPU and building its
// engine start the driver (~0.2 s), which then overlaps reading the input.
// An engine that takes FASTQ text also gets its pinned buffers there
// (`pinned_bytes` each; pinning takes time too). Several GPU workers build
// their engines on their own threads (count_workers.hpp): here they get the
// pinned buffers of the ring their text goes through, and no engine.
class EngineLaunch {
 public:
  EngineLaunch(const CountOptions& options, RunStore& store, std::size_t pinned_bytes,
               std::uint64_t input_kmers)
      : pending_(std::async(std::launch::async, [&options, &store, pinned_bytes, input_kmers] {
          Launched launched;
          if (options.choose_device) launched.device = choose_engine_device(options);
          const MemoryPlan plan = plan_memory(options.max_memory, launched.device.gpu);
          EngineParams params = engine_params(options, plan, input_kmers);
          params.device_index = launched.device.first();
          if (launched.device.workers() > 1) {
            if (pinned_bytes > 0 && options.gpu_workers.takes_fastq_text) {
              for (std::size_t i = 0; i < kWorkerRingSlots; ++i) {
                launched.ring_texts.push_back(
                    std::make_unique<io::TextBuffer>(gpu::pinned_resource()));
                launched.ring_texts.back()->reserve(pinned_bytes);
              }
            }
            trace("kmer-count: GPU workers' ring ready");
            return launched;
          }
          const auto& make = options.gpu_workers.make;
          launched.engine = !launched.device.gpu ? make_cpu_engine(params, store)
                            : make               ? make(params, store)
                                                 : make_gpu_engine(params, store);
          if (pinned_bytes > 0 && launched.engine->takes_fastq_text()) {
            launched.pinned = std::make_unique<PinnedText>();
            for (io::TextBuffer& b : launched.pinned->buffers) b.reserve(pinned_bytes);
          }
          trace("kmer-count: engine ready");
          return launched;
        })) {}

  [[nodiscard]] bool ready() const {
    return pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
  // Waits for the engine; rethrows what its construction threw. Null with
  // several GPU workers, whose ring buffers go to `ring_texts`.
  [[nodiscard]] std::unique_ptr<CountingEngine> get(
      DeviceChoice& device, std::unique_ptr<PinnedText>& pinned,
      std::vector<std::unique_ptr<io::TextBuffer>>& ring_texts) {
    Launched launched = pending_.get();
    device = launched.device;
    pinned = std::move(launched.pinned);
    ring_texts = std::move(launched.ring_texts);
    return std::move(launched.engine);
  }

 private:
  struct Launched {
    DeviceChoice device;
    std::unique_ptr<CountingEngine> engine;
    std::unique_ptr<PinnedText> pinned;                       // null unless the engine takes text
    std::vector<std::unique_ptr<io::TextBuffer>> ring_texts;  // several workers' text
  };
  std::future<Launched> pending_;
};

// Reads chunks into plain memory until the engine is ready, the file ends or
// `limit` bytes are held.
void read_while_starting(FastqText& text, const EngineLaunch& launch, std::size_t limit) {
  std::size_t held = 0;
  while (!launch.ready() && held < limit) {
    io::TextBuffer& chunk = text.early.emplace_back(large_buffer_resource());
    if (!text.reader->next(chunk)) {
      text.early.pop_back();
      break;
    }
    held += chunk.size();
  }
  trace("kmer-count: read while the engine started");
}

// The FASTQ text of one file through two pinned buffers taken in turn, so
// the engine may still read the previous chunk while the next is read.
void count_fastq_text(CountingEngine& engine, FastqText& text, PinnedText& pinned_text,
                      unsigned threads, CountStats& stats, Reporter& report) {
  std::uint64_t bytes = 0;
  double adding_seconds = 0;  // SEQFUSE_TRACE's account
  const auto add = [&](const io::TextBuffer& chunk) {
    const Stopwatch adding;
    engine.add_fastq_text(chunk.data(), chunk.size());
    adding_seconds += adding.seconds();
    bytes += chunk.size();
    report.progress(si_number(static_cast<double>(bytes)) + "B of FASTQ");
  };
  // Two pinned buffers in turn: add() returns once the chunk before the
  // previous one is done with, so the buffer about to be refilled is free.
  io::TextBuffer* pinned = pinned_text.buffers;
  int turn = 0;
  // The chunks read while the engine started sit in pageable memory, from
  // which a device copy runs at a fraction of PCIe speed: they go through the
  // pinned buffers too, copied there on every thread.
  while (!text.early.empty()) {
    const io::TextBuffer& chunk = text.early.front();
    pinned[turn].reserve(chunk.size());
    parallel_copy(pinned[turn].data(), chunk.data(), chunk.size(), threads);
    pinned[turn].resize(chunk.size());
    text.early.pop_front();
    add(pinned[turn]);
    turn = 1 - turn;
  }
  for (; text.reader->next(pinned[turn]); turn = 1 - turn) add(pinned[turn]);
  char times[96];
  std::snprintf(times, sizeof times, " read in %.3f s, added in %.3f s",
                text.reader->reading_seconds(), adding_seconds);
  std::string line = "kmer-count: ";  // in steps: GCC 12 warns (-Wrestrict) on "" + string
  line += text.reader->display_name();
  line += times;
  trace(line);
  take_text_totals(engine.text_totals(), text.reader->display_name(), stats, report);
}

// The totals of a histogram an engine gave.
MergeTotals frequency_totals(
    const std::vector<std::pair<std::uint32_t, std::uint64_t>>& frequencies) {
  MergeTotals totals;
  for (const auto& [count, kmers] : frequencies) {
    totals.total_kmers += std::uint64_t{count} * kmers;
    totals.distinct += kmers;
    if (count == kCountLimit) totals.saturated += kmers;
  }
  return totals;
}

void warn_if_saturated(const MergeTotals& totals, Reporter& report) {
  if (totals.saturated > 0)
    report.warn(std::to_string(totals.saturated) + " k-mers reached the count limit " +
                std::to_string(kCountLimit));
}

}  // namespace

// A FASTQ record holds a quality byte per base, so its k-mers are at most
// half its bytes; FASTA's at most all of them.
std::uint64_t kmer_bound(const std::vector<std::string>& inputs, std::size_t slack) {
  std::uint64_t bound = slack;
  for (const std::string& input : inputs) {
    if (input == "-") return 0;
    std::error_code error;
    if (!std::filesystem::is_regular_file(input, error)) return 0;
    const std::uint64_t size = std::filesystem::file_size(input, error);
    if (error) return 0;
    unsigned char magic[2] = {0, 0};
    std::ifstream raw(input, std::ios::binary);
    raw.read(reinterpret_cast<char*>(magic), 2);
    if (magic[0] == 0x1f && magic[1] == 0x8b) return 0;  // gzip or BGZF
    bound += io::first_symbol(input) == '@' ? size / 2 : size;
  }
  return bound;
}

MemoryPlan plan_memory(std::size_t max_memory, bool gpu) {
  MemoryPlan plan;
  // Small batches on the CPU so the reader thread decompresses and parses the
  // next one while the workers count this one; large ones for the GPU, where
  // each batch is a transfer and a launch.
  const std::size_t largest_batch = gpu ? std::size_t{64} << 20 : std::size_t{4} << 20;
  plan.batch_bases = std::clamp<std::size_t>(max_memory / 64, std::size_t{1} << 20, largest_batch);
  // The GPU engine sizes its device and pinned buffers itself from the cap.
  plan.engine_budget = gpu ? max_memory : max_memory / 100 * 45;
  plan.runs_in_memory = max_memory / 100 * 35;
  plan.merge_buffers = max_memory / 10;
  // The engine is gone by the merge: its share holds merged ranges waiting
  // for the outputs.
  plan.merge_lookahead = max_memory / 100 * 40;
  return plan;
}

namespace {

CountStats count_and_write(const CountOptions& options, Reporter& report) {
  validate(options);
  for (const std::string& input : options.inputs) register_input(input);
  // Outputs first: an unwritable path fails before any work.
  const std::unique_ptr<OutputFile> db_out = open_output(options.db_path, OutputKind::binary);
  const std::unique_ptr<OutputFile> histo_out = open_output(options.histo_path, OutputKind::text);
  const std::unique_ptr<OutputFile> dump_out = open_output(options.dump_path, OutputKind::text);
  RunFacts& facts = report.facts();  // for --json (docs/json-report.md)
  for (const std::string& input : options.inputs) facts.input(input);
  for (const std::string* path : {&options.db_path, &options.histo_path, &options.dump_path})
    if (!path->empty()) facts.output(*path);

  // Where runs are kept does not depend on the device.
  RunStore store(options.k, plan_memory(options.max_memory, false).runs_in_memory,
                 choose_spill_dir(options));
  // The GPU engine's input sizes, known before it is built: text chunks, and
  // a bound on the k-mers with one parsed batch or chunk of slack.
  const std::size_t gpu_batch_bases = plan_memory(options.max_memory, true).batch_bases;
  const std::size_t gpu_chunk_bytes =
      std::min(options.tunables.gpu_text_chunk_bytes, 2 * gpu_batch_bases);
  const std::uint64_t bound =
      kmer_bound(options.inputs, std::max(gpu_chunk_bytes, gpu_batch_bases));
  EngineLaunch launch(options, store, gpu_chunk_bytes + 1, bound);

  // While a GPU may be starting, the first input, when it is a FASTQ file,
  // is read ahead as text in the GPU engine's chunks (a quarter of -m at most).
  std::optional<FastqText> first_text;
  const std::string& first = options.inputs.front();
  if (options.choose_device && gpu_workers_available(options) && first != "-" &&
      io::first_symbol(first) == '@') {
    first_text = open_fastq_text(first, gpu_chunk_bytes, options.threads);
    read_while_starting(*first_text, launch, options.max_memory / 4);
  }
  CountStats stats;
  std::unique_ptr<PinnedText> pinned;
  std::vector<std::unique_ptr<io::TextBuffer>> ring_texts;
  std::unique_ptr<CountingEngine> engine = launch.get(stats.device, pinned, ring_texts);
  const MemoryPlan plan = plan_memory(options.max_memory, stats.device.gpu);
  // With only --histo wanted, an engine that counted everything in one round
  // may give the histogram itself (the GPU engine makes it on the device).
  const bool histogram_only = histo_out && !db_out && !dump_out;
  bool histogram_complete = false;
  // (count, k-mers) pairs of the histograms the engines gave, ascending.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> frequencies;
  if (!engine) {
    // Several GPU workers, each counting its key range of all the input.
    if (first_text && !options.gpu_workers.takes_fastq_text) first_text.reset();
    WorkerCount setup;
    setup.devices = stats.device.devices;
    setup.engine = engine_params(options, plan, bound);
    setup.bound_slack = std::max(gpu_chunk_bytes, gpu_batch_bases);
    setup.chunk_bytes = gpu_chunk_bytes;
    setup.batch_bases = plan.batch_bases;
    setup.histogram_only = histogram_only;
    setup.engines = options.gpu_workers;
    WorkersCounted counted =
        count_on_workers(options, setup, store, first_text, std::move(ring_texts), stats, report);
    histogram_complete = counted.histogram_complete;
    frequencies = std::move(counted.frequencies);
    trace("kmer-count: input read and counted on the workers");
    facts.phase("count");
  } else {
    if (first_text && !engine->takes_fastq_text())
      first_text.reset();  // parsed on the host instead
    if (engine->takes_fastq_text() && !pinned) pinned = std::make_unique<PinnedText>();

    for (std::size_t i = 0; i < options.inputs.size(); ++i) {
      const std::string& input = options.inputs[i];
      if (i == 0 && first_text) {
        count_fastq_text(*engine, *first_text, *pinned, options.threads, stats, report);
        first_text.reset();
        continue;
      }
      // A FASTQ file goes unparsed to an engine that parses on its device;
      // stdin cannot be peeked at, so it is always parsed here.
      const bool as_text =
          engine->takes_fastq_text() && input != "-" && io::first_symbol(input) == '@';
      if (as_text) {
        FastqText text = open_fastq_text(input, gpu_chunk_bytes, options.threads);
        count_fastq_text(*engine, text, *pinned, options.threads, stats, report);
      } else {
        count_batches(*engine, input, plan.batch_bases, stats, report);
      }
    }
    trace("kmer-count: input read");
    facts.phase("count");
    if (histogram_only) {
      histogram_complete = engine->finish_with_histogram(frequencies);
    } else {
      engine->finish();
    }
  }
  if (histogram_complete) {
    CountHistogram histogram;
    for (const auto& [count, kmers] : frequencies) histogram.add(count, kmers);
    stats.totals = frequency_totals(frequencies);
    histo_out->write(histogram.jellyfish_text());
    histo_out->commit();
    trace("kmer-count: histogram from the engine written");
    facts.phase("write");
    warn_if_saturated(stats.totals, report);
    if (options.exits_after) {
      (void)engine.release();  // see CountOptions::exits_after
      (void)pinned.release();
    }
    return stats;
  }
  engine.reset();  // frees the engine's buffers before the merge
  trace("kmer-count: counted");
  stats.runs = store.run_count();
  stats.spilled_runs = store.spilled_runs().size();

  KmerDbInfo info;
  info.k = options.k;
  info.canonical = options.canonical;
  info.lower_count = options.lower_count;
  info.upper_count = options.upper_count;
  std::optional<KmerDbWriter> db;
  if (db_out) db.emplace(*db_out, info);
  CountHistogram histogram;
  // Workers that gave their histograms hold none of the store's keys.
  for (const auto& [count, kmers] : frequencies) histogram.add(count, kmers);
  const std::size_t read_buffer = plan.merge_buffers / std::max<std::size_t>(1, stats.spilled_runs);
  MergeOptions merge_options;
  merge_options.read_buffer_bytes = read_buffer;
  merge_options.threads = options.threads;
  merge_options.lookahead_bytes = plan.merge_lookahead;
  MergedOutputs outputs(merge_options.threads, options.lower_count, options.upper_count,
                        db ? &*db : nullptr, dump_out.get(), histo_out != nullptr);
  stats.totals = merge_runs(store, merge_options, outputs);
  stats.kept = outputs.kept();
  outputs.add_histogram_to(histogram);
  trace("kmer-count: merged and written");
  store.clear();
  const MergeTotals given = frequency_totals(frequencies);
  stats.totals.total_kmers += given.total_kmers;
  stats.totals.distinct += given.distinct;
  stats.totals.saturated += given.saturated;
  if (db) db->finish(stats.totals.total_kmers, stats.totals.distinct);
  if (histo_out) histo_out->write(histogram.jellyfish_text());
  for (OutputFile* out : {db_out.get(), histo_out.get(), dump_out.get()})
    if (out != nullptr) out->commit();
  facts.phase("write");  // the merge of sorted runs, written as it goes
  warn_if_saturated(stats.totals, report);
  return stats;
}

void report_summary(const CountOptions& options, const CountStats& stats, double seconds,
                    Reporter& report) {
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

  RunFacts& facts = report.facts();
  facts.count("reads", stats.reads);
  facts.count("bases", stats.bases);
  facts.count("kmers_total", stats.totals.total_kmers);
  facts.count("kmers_distinct", stats.totals.distinct);
  facts.count("kmers_saturated", stats.totals.saturated);
  // Only the dump and the database are filtered by -L/-U; with neither, nothing was kept.
  if (!options.db_path.empty() || !options.dump_path.empty()) facts.count("kmers_kept", stats.kept);
  facts.device(stats.device, options.threads);
  facts.throughput(kmers, seconds, "k-mers/s");
}

}  // namespace

CountStats run_count_job(const CountOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  const Stopwatch clock;
  const CountStats stats = count_and_write(options, report);
  report_summary(options, stats, clock.seconds(), report);
  return stats;
}

}  // namespace seqfuse::kmer
