#include "preprocess/trim_run.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "core/device_choice.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/output_stream.hpp"
#include "core/parallel.hpp"
#include "core/regular_file.hpp"
#include "gpu/runtime.hpp"
#include "preprocess/adapter_fasta.hpp"
#include "preprocess/device_engines.hpp"
#include "preprocess/engine.hpp"
#include "preprocess/gpu_engine.hpp"
#include "preprocess/gzip_member.hpp"
#include "preprocess/input_evaluation.hpp"
#include "preprocess/read_source.hpp"
#include "preprocess/report/adapter_listing.hpp"
#include "preprocess/report/duplication.hpp"
#include "preprocess/report/html_report.hpp"
#include "preprocess/report/json_report.hpp"
#include "preprocess/write_behind.hpp"

namespace seqfuse::preprocess {
namespace {

// Chunks per worker thread in a group read ahead. Records (or pairs) per
// chunk are the engine's (fastp's pack size, 1000, on the CPU); output
// order does not depend on it.
constexpr std::size_t kChunksPerThread = 4;

// Input bytes from which the duplication estimate's array is backed by huge
// pages (Duplication's many_reads): about 25,000 pairs of 150 bp, well past
// the 2,500 or so reads from which 256 huge pages zeroed whole cost less
// than a 4 KiB page faulted in for each read. Stdin and pipes keep 4 KiB pages.
constexpr std::uint64_t kManyReadsInputBytes = std::uint64_t{16} << 20;

enum Stream { kOut1, kOut2, kUnpaired1, kUnpaired2, kFailed, kOverlapped, kStreams };

// One output file; gzip when its name ends in .gz (not for stdout).
struct Sink {
  std::unique_ptr<OutputFile> file;
  bool gzip = false;
};

// What one chunk adds to the outputs. Apart from the reads (Slot), so that
// a group's text can wait for the writer while the next group is trimmed.
struct ChunkText {
  ChunkOutput text;
  std::string members[kStreams];  // gzip members of the streams that are gzip
};

struct GroupText {
  std::vector<ChunkText> chunks;
  std::size_t filled = 0;  // chunks of this group (the last group may be short)
  // Per chunk: its text is final (trimmed, or its error met). The writer
  // may take a group before it is trimmed and write each chunk once ready.
  std::unique_ptr<std::atomic<bool>[]> ready;

  void mark_ready(std::size_t chunk) {
    ready[chunk].store(true, std::memory_order_release);
    ready[chunk].notify_all();
  }
  void wait_ready(std::size_t chunk) const { ready[chunk].wait(false, std::memory_order_acquire); }
};

// Two groups of output: one written (write_behind.hpp) while one is filled.
constexpr std::size_t kGroupTexts = 2;

// The ChunkOutput member a stream's text is in (const or not, through .*).
std::string ChunkOutput::*stream_text(int stream) {
  switch (stream) {
    case kOut1:
      return &ChunkOutput::out1;
    case kOut2:
      return &ChunkOutput::out2;
    case kUnpaired1:
      return &ChunkOutput::unpaired1;
    case kUnpaired2:
      return &ChunkOutput::unpaired2;
    case kOverlapped:
      return &ChunkOutput::overlapped;
    default:
      return &ChunkOutput::failed;
  }
}

// fastp's adapter choice (main.cpp and Options::validate): given, detected
// (single-end by default, paired-end with --detect_adapter_for_pe), or none;
// on stdin there is no detection.
void choose_adapters(const TrimOptions& o, bool evaluate1, bool evaluate2, TrimPlan& plan,
                     bool& adapter_cutting, Reporter& report) {
  const bool paired = is_paired(o);
  std::string a1 = o.adapter_sequence, a2 = o.adapter_sequence_r2;
  if (a2 == "auto" && !o.detect_adapter_for_pe && a1 != "auto") a2 = a1;
  if (!o.disable_adapter_trimming) {
    if (evaluate1 && a1 == "auto" && (!paired || o.detect_adapter_for_pe)) {
      // fastp says nothing was found also when it could not look (under 10,000 reads).
      const std::optional<std::string> found = detect_adapter(o.in1, o.trim_tail1);
      a1 = found.value_or(std::string());
      if (found && found->empty()) report.warn("no adapter detected for read 1");
    }
    // An interleaved file has no second file to detect read 2's adapter in.
    if (evaluate2 && o.detect_adapter_for_pe && a2 == "auto") {
      const std::optional<std::string> found = detect_adapter(o.in2, o.trim_tail1);
      a2 = found.value_or(std::string());
      if (found && found->empty()) report.warn("no adapter detected for read 2");
    }
  }
  // fastp's adapterCuttingEnabled() reads the sequence option as it ends
  // up: "auto" (no detection ran, as on stdin) counts as set.
  adapter_cutting = !o.disable_adapter_trimming && (paired || !a1.empty());
  plan.adapter1 = a1 == "auto" ? std::string() : a1;
  plan.adapter2 = (paired && a2 != "auto") ? a2 : std::string();
}

// fastp's makeListFromFileByLine: one barcode a line (a line end's '\r'
// dropped), only A, C, G and T; an empty line is an empty barcode, which
// matches every read, as in fastp.
std::vector<std::string> load_barcodes(const std::string& path) {
  std::vector<std::string> barcodes;
  if (path.empty()) return barcodes;
  register_input(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open barcode list '" + path + "': " + std::strerror(errno));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of("ACGT") != std::string::npos)
      throw Error("a barcode may hold only A, C, G and T, " + path + " line " +
                  std::to_string(number));
    barcodes.push_back(line);
  }
  return barcodes;
}

// The one place an engine is chosen: the GPU's when a device was chosen
// and the plan is one it runs; otherwise the CPU's, with a warning under
// --device auto and an error under --device gpu (as bwt does it).
// Several GPU workers (gpu:0,1 or gpu:0,0) get an engine each, chunks
// dealt to them (device_engines.hpp); one worker keeps the one engine.
std::unique_ptr<TrimEngine> choose_engine(const TrimOptions& options, const DeviceChoice& device,
                                          const TrimPlan& plan, const GpuEngineSource& gpu,
                                          Reporter& report) {
  if (!device.gpu) return make_cpu_trim_engine(plan);
  if (!gpu.compiled) {
    if (options.gpu_required) throw Error("--device gpu: this build has no GPU fastq-trim engine");
    return make_cpu_trim_engine(plan);
  }
  const std::string refusal = gpu_trim_refusal(plan);
  if (refusal.empty()) {
    if (device.devices.size() <= 1) return gpu.make(plan, device.first());
    return deal_to_engines(
        make_device_engines(
            device.devices, [&](int index) { return gpu.make(plan, index); }, gpu.bind),
        device.name());
  }
  if (options.gpu_required) throw Error("--device gpu: " + refusal);
  report.warn(refusal + ": trimming on the CPU");
  return make_cpu_trim_engine(plan);
}

}  // namespace

TrimSummary run_fastq_trim(const TrimOptions& options, Reporter& report) {
  GpuEngineSource engines;
  engines.compiled = gpu_trim_engine_compiled();
  engines.make = make_gpu_trim_engine;
  engines.bind = [](int device) { gpu::use_device(device); };
  return run_fastq_trim(options, report, engines);
}

TrimSummary run_fastq_trim(const TrimOptions& options, Reporter& report,
                           const GpuEngineSource& gpu_engines) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  const bool paired = is_paired(options);
  const bool stdout_output = options.stdout_output;
  if (options.dont_overwrite) {
    for (const std::string* path :
         {&options.out1, &options.out2, &options.unpaired1, &options.unpaired2, &options.failed_out,
          &options.overlapped_out, &options.json, &options.html})
      if (!path->empty() && std::filesystem::exists(*path))
        throw Error("--dont_overwrite: " + *path + " exists");
  }
  for (const std::string* input : {&options.in1, &options.in2}) register_input(*input);
  // The device is chosen on a thread of its own: a GPU's start-up overlaps
  // the evaluation pass. Device problems are still reported.
  std::future<DeviceChoice> device_choice =
      options.choose_device ? std::async(std::launch::async, options.choose_device)
                            : std::async(std::launch::deferred, [] { return DeviceChoice{}; });
  // The future's destructor waits for the thread; its errors surface at get().
  // Outputs first: an unwritable path fails before any reading.
  std::vector<Sink> sinks(kStreams);
  const auto open = [&](int stream, const std::string& path) {
    sinks[static_cast<std::size_t>(stream)].file = std::make_unique<OutputFile>(path);
    sinks[static_cast<std::size_t>(stream)].gzip = path != "-" && gzip_output_name(path);
  };
  if (stdout_output)
    open(kOut1, "-");
  else if (!options.out1.empty())
    open(kOut1, options.out1);
  if (!stdout_output && paired && !options.out2.empty()) open(kOut2, options.out2);
  const std::string unpaired2 = options.unpaired2.empty() ? options.unpaired1 : options.unpaired2;
  if (paired && !options.unpaired1.empty()) open(kUnpaired1, options.unpaired1);
  if (paired && !unpaired2.empty() && unpaired2 != options.unpaired1) open(kUnpaired2, unpaired2);
  if (!options.failed_out.empty()) open(kFailed, options.failed_out);
  if (paired && !options.overlapped_out.empty()) open(kOverlapped, options.overlapped_out);
  std::unique_ptr<OutputFile> json_file, html_file;
  if (!options.json.empty()) json_file = std::make_unique<OutputFile>(options.json);
  if (!options.html.empty()) html_file = std::make_unique<OutputFile>(options.html);

  TrimPlan plan;
  plan.settings = resolve(options);
  plan.interleaved_output = paired && stdout_output;
  plan.write_failed = sinks[kFailed].file != nullptr;
  plan.write_unpaired1 = sinks[kUnpaired1].file != nullptr;
  plan.write_unpaired2 = sinks[kUnpaired2].file != nullptr;
  plan.write_overlapped = sinks[kOverlapped].file != nullptr;
  plan.index_blacklist1 = load_barcodes(options.filter_by_index1);
  plan.index_blacklist2 = load_barcodes(options.filter_by_index2);
  plan.index_threshold = options.filter_by_index_threshold;
  if (!options.adapter_fasta.empty() && !options.disable_adapter_trimming)
    plan.fasta_adapters = load_adapter_fasta(options.adapter_fasta);

  // fastp's evaluation pass re-reads the start of the files: not on stdin
  // (as fastp), nor on pipes such as <(zcat ...), whose first reads it
  // would consume (fastp loses them).
  const auto rereadable = [](const std::string& path) {
    std::error_code ignored;
    return !path.empty() && path != "-" && path != "/dev/stdin" &&
           std::filesystem::is_regular_file(path, ignored);
  };
  const bool evaluate1 = !options.stdin_input && rereadable(options.in1);
  const bool evaluate2 = !options.stdin_input && rereadable(options.in2);
  std::error_code missing;
  if (!options.stdin_input && options.in1 != "-" && options.in1 != "/dev/stdin" && !evaluate1 &&
      std::filesystem::exists(options.in1, missing))
    report.warn(options.in1 +
                " is not a regular file: no adapter detection or two-colour check (as on stdin)");
  InputGlance glance1, glance2;
  if (evaluate1) {
    glance1 = glance_at_input(options.in1);
    if (glance1.records == 0) throw Error("no FASTQ records in the input, " + options.in1);
  }
  if (evaluate2) glance2 = glance_at_input(options.in2);
  if (!options.trim_poly_g && !options.disable_trim_poly_g && glance1.two_colour)
    plan.settings.poly_g = true;
  bool adapter_cutting = false;
  choose_adapters(options, evaluate1, evaluate2, plan, adapter_cutting, report);
  trace("fastq-trim: evaluation done");

  // fastp: -D turns the estimate on whatever --dont_eval_duplication says,
  // at accuracy 3 unless --dup_calc_accuracy is given (clamped to 1..6).
  std::unique_ptr<Duplication> duplication;
  if (!options.dont_eval_duplication || options.dedup) {
    const int accuracy = options.dup_calc_accuracy > 0 ? std::min(options.dup_calc_accuracy, 6)
                         : options.dedup               ? 3
                                                       : 1;
    // SEQFUSE_TRIM_DUP_SMALL_PAGES keeps 4 KiB pages (a measuring knob).
    const bool many_reads =
        regular_file_size(options.in1) + regular_file_size(options.in2) >= kManyReadsInputBytes &&
        std::getenv("SEQFUSE_TRIM_DUP_SMALL_PAGES") == nullptr;
    duplication = std::make_unique<Duplication>(accuracy, many_reads);
  }
  plan.dedup = options.dedup;

  const unsigned threads = resolve_threads(options.threads);
  const int length2 = options.interleaved_in ? glance1.read_length : glance2.read_length;
  std::vector<TrimTally> tallies;
  for (unsigned t = 0; t < threads; ++t) tallies.emplace_back(glance1.read_length, length2);
  std::vector<std::unique_ptr<GzipCompressor>> compressors;
  for (unsigned t = 0; t < threads; ++t)
    compressors.push_back(std::make_unique<GzipCompressor>(options.compression));

  // With -D the reading thread marks duplicates in input order (which copy
  // stays is fastp's -w 1 choice). Without it only the estimate counts,
  // which is the same in any order (duplication.hpp), so the workers feed
  // it, chunk by chunk, before trimming (base correction edits the bases).
  Duplication* in_order = plan.dedup ? duplication.get() : nullptr;
  Duplication* on_workers = plan.dedup ? nullptr : duplication.get();
  // A chunk's sums first, then its bits (Duplication::check_sums), on the
  // workers, unless the engine took the estimate (the GPU engine hashes
  // the reads and sets the bits on its device: take_duplication).
  const auto sum_slot = [on_workers, paired](const Slot& slot, std::vector<std::uint64_t>& sums) {
    duplication_sums(*on_workers, slot.reads, paired ? &slot.mates : nullptr, sums);
  };
  const auto check_sums = [on_workers](std::span<const std::uint64_t> sums) {
    Duplication::Tally tally;  // added once a chunk (duplication.hpp)
    on_workers->check_sums(sums, tally);
    on_workers->add(tally);
  };
  bool engine_estimates = false;  // set once the engine is chosen
  std::vector<std::vector<std::uint64_t>> worker_sums(threads);
  const auto estimate = [&](const Slot& slot, unsigned worker) {
    if (on_workers == nullptr || engine_estimates) return;
    sum_slot(slot, worker_sums[worker]);
    check_sums(worker_sums[worker]);
  };
  // The first group is read while the GPU starts (0.2-0.3 s), in the chunks
  // of the engine the device most likely brings (the output does not depend
  // on them).
  const bool gpu_likely =
      options.choose_device && gpu_engines.compiled && gpu_trim_refusal(plan).empty();
  // On the heap, as the groups and texts below: left to the OS when the
  // process exits after the run (TrimOptions::exits_after).
  auto source_owner = std::make_unique<ReadSource>(
      options, in_order, gpu_likely ? gpu_trim_chunk_records() : kCpuChunkRecords);
  ReadSource& source = *source_owner;
  const std::size_t group_size = std::max<std::size_t>(2, threads * kChunksPerThread);
  auto groups_owner = std::make_unique<std::array<std::vector<Slot>, 2>>();
  std::array<std::vector<Slot>, 2>& groups = *groups_owner;
  for (std::vector<Slot>& group : groups) group.resize(group_size);
  double reader_busy = 0;  // seconds the reading threads took, for SEQFUSE_TRACE
  // An error to throw once a group's records are checked (read_source.hpp).
  std::exception_ptr after_group[2];
  const auto fill_group = [&source, &reader_busy, &groups, &after_group](int g) {
    const Stopwatch busy;
    const std::size_t n = source.fill_group(groups[g], after_group[g]);
    reader_busy += busy.seconds();  // one fill at a time (the loop waits for it)
    return n;
  };
  // Both groups are read while the device starts: the reading threads
  // bound the run (issue 17), and with only the first read ahead they sat
  // idle from its end until the engine was ready (run 27: the loop began at
  // 0.31 s). The second is read after the first, on the same thread, so
  // -D's duplicate marks keep input order; after an error in the first it
  // is not read (the loop never gets to it).
  std::promise<std::size_t> first_read;
  std::future<std::size_t> first_group = first_read.get_future();
  std::future<std::size_t> second_group = std::async(std::launch::async, [&] {
    try {
      first_read.set_value(fill_group(0));
    } catch (...) {
      first_read.set_exception(std::current_exception());
      return std::size_t{0};
    }
    return fill_group(1);
  });
  // Thread-seconds of the workers: parsing and the duplication estimate,
  // and the engine's trim (a worker's own slot, so no atomics).
  struct WorkerSeconds {
    double parse = 0, trim = 0;
  };
  std::vector<WorkerSeconds> worker_seconds(threads);
  const auto prepare = [&](Slot& slot, unsigned worker) {
    const Stopwatch parsing;
    source.parse(slot);
    estimate(slot, worker);
    worker_seconds[worker].parse += parsing.seconds();
  };
  // While the device starts the workers would idle: they parse the first
  // group and compute its sums, which go to the estimate unless the engine
  // takes it (then they are not needed). Errors wait for the loop, which
  // reports them in input order after any error in choosing the device.
  std::size_t filled = 0;
  std::exception_ptr first_error;
  try {
    filled = first_group.get();
  } catch (...) {
    first_error = std::current_exception();
  }
  std::vector<std::exception_ptr> prepare_errors(filled);
  std::vector<std::vector<std::uint64_t>> first_sums(filled);
  parallel_chunks(filled, 1, threads, [&](unsigned worker, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      try {
        const Stopwatch parsing;
        source.parse(groups[0][i]);
        if (on_workers != nullptr) sum_slot(groups[0][i], first_sums[i]);
        worker_seconds[worker].parse += parsing.seconds();
      } catch (...) {
        prepare_errors[i] = std::current_exception();
      }
    }
  });
  trace("fastq-trim: first group parsed");
  const DeviceChoice device = device_choice.get();
  trace("fastq-trim: device chosen");
  std::unique_ptr<TrimEngine> engine = choose_engine(options, device, plan, gpu_engines, report);
  if (first_error) std::rethrow_exception(first_error);
  if (filled == 0) throw Error("no FASTQ records in the input, " + source.name1());
  // An engine that takes the estimate hashes the first group as it trims
  // it; otherwise its sums go in now.
  if (on_workers != nullptr) engine_estimates = engine->take_duplication(*on_workers);
  if (on_workers != nullptr && !engine_estimates) {
    parallel_chunks(filled, 1, threads, [&](unsigned, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) check_sums(first_sums[i]);
    });
  }

  // Which streams each writing lane writes: a lane of its own for each file
  // renamed into place at the end; those written through (stdout, devices,
  // FIFOs: perhaps one descriptor twice) share lane 0 and keep the order the
  // single writer had.
  std::vector<std::vector<int>> lane_streams(1);
  for (int s = 0; s < kStreams; ++s) {
    const Sink& sink = sinks[static_cast<std::size_t>(s)];
    if (!sink.file) continue;
    // fastp writes --unpaired2 only beside --unpaired1 (see docs).
    if (s == kUnpaired2 && !plan.write_unpaired1) continue;
    if (sink.file->written_through())
      lane_streams[0].push_back(s);
    else
      lane_streams.push_back({s});
  }
  if (lane_streams[0].empty() && lane_streams.size() > 1) lane_streams.erase(lane_streams.begin());
  auto texts_owner = std::make_unique<std::vector<GroupText>>(kGroupTexts);
  std::vector<GroupText>& texts = *texts_owner;
  for (GroupText& text : texts) {
    text.chunks.resize(group_size);
    text.ready = std::make_unique<std::atomic<bool>[]>(group_size);
  }
  // When every output is a file renamed into place, a group goes to the
  // writer before it is trimmed, and each chunk is written once ready: the
  // writing then trails the trimming by a chunk or so, instead of the last
  // group's being written after the loop (0.27 s of a 1.7 s run on 4 M
  // pairs, run 32a). Outputs written through (stdout, a FIFO) still get
  // whole groups only, as before: nothing of a group that holds a
  // malformed record reaches them.
  // (SEQFUSE_TRIM_WRITE_GROUPS writes whole groups always: a measuring knob.)
  const bool write_while_trimming = std::getenv("SEQFUSE_TRIM_WRITE_GROUPS") == nullptr &&
                                    std::none_of(sinks.begin(), sinks.end(), [](const Sink& sink) {
                                      return sink.file && sink.file->written_through();
                                    });
  const auto write_text = [&](std::size_t buffer, std::size_t lane) {
    const GroupText& text = texts[buffer];
    for (std::size_t i = 0; i < text.filled; ++i) {
      text.wait_ready(i);
      const ChunkText& chunk = text.chunks[i];
      for (const int s : lane_streams[lane]) {
        Sink& sink = sinks[static_cast<std::size_t>(s)];
        sink.file->write(sink.gzip ? chunk.members[s] : chunk.text.*stream_text(s));
      }
    }
  };
  // Declared after the sinks and texts it writes: on the way out of an
  // error it is destroyed first, so its lanes end before they go.
  WriteBehind writer(kGroupTexts, lane_streams.size(), write_text);
  // Where the loop waits, for SEQFUSE_TRACE: on the writer, trimming, or on
  // the reading of the next group (whichever stage bounds the pipeline).
  double waited_writer = 0, trimming = 0, waited_reader = 0;
  std::size_t groups_done = 0;
  for (int current = 0; filled > 0; current ^= 1) {
    std::vector<Slot>& group = groups[current];
    // The next group is read while this one is trimmed (the second already is).
    std::future<std::size_t> next = groups_done == 0
                                        ? std::move(second_group)
                                        : std::async(std::launch::async, fill_group, current ^ 1);
    try {
      Stopwatch stage;
      const std::size_t buffer = writer.acquire();
      waited_writer += stage.seconds();
      const Stopwatch trimmed;
      GroupText& text = texts[buffer];
      text.filled = filled;
      for (std::size_t i = 0; i < filled; ++i)
        text.ready[i].store(false, std::memory_order_relaxed);
      // Each chunk's error is kept, so that the first in input order is the
      // one reported whichever worker met it first.
      std::vector<std::exception_ptr> chunk_errors(filled);
      // Every chunk is marked ready however the trimming ends (a thread that
      // failed to start skips chunks): a lane waiting on one must go on.
      const auto all_ready = [&text, filled] {
        for (std::size_t i = 0; i < filled; ++i) text.mark_ready(i);
      };
      if (write_while_trimming) writer.submit(buffer);
      try {
        parallel_chunks(
            filled, 1, threads, [&](unsigned worker, std::size_t begin, std::size_t end) {
              for (std::size_t i = begin; i < end; ++i) {
                Slot& slot = group[i];
                ChunkText& out = text.chunks[i];
                out.text.clear();
                try {
                  if (groups_done > 0)
                    prepare(slot, worker);
                  else if (prepare_errors[i])  // the first group was prepared above
                    std::rethrow_exception(prepare_errors[i]);
                  const Stopwatch engine_time;
                  engine->trim(slot.reads, paired ? &slot.mates : nullptr, out.text,
                               tallies[worker]);
                  worker_seconds[worker].trim += engine_time.seconds();
                  for (int s = 0; s < kStreams; ++s)
                    if (sinks[static_cast<std::size_t>(s)].gzip)
                      compressors[worker]->compress(out.text.*stream_text(s), out.members[s]);
                } catch (...) {
                  chunk_errors[i] = std::current_exception();
                }
                text.mark_ready(i);
              }
            });
      } catch (...) {
        all_ready();
        throw;
      }
      all_ready();
      for (const std::exception_ptr& error : chunk_errors)
        if (error) std::rethrow_exception(error);
      if (after_group[current]) std::rethrow_exception(after_group[current]);
      trimming += trimmed.seconds();
      if (!write_while_trimming) writer.submit(buffer);
    } catch (...) {
      try {
        (void)next.get();
      } catch (...) {
      }
      throw;
    }
    const Stopwatch reading;
    filled = next.get();
    waited_reader += reading.seconds();
    ++groups_done;
    report.progress(std::to_string(source.records()) + (paired ? " pairs" : " reads") + " read");
  }
  trace("fastq-trim: " + std::to_string(groups_done) + " groups: waited " +
        std::to_string(waited_writer) + " s on the writer, trimmed " + std::to_string(trimming) +
        " s, waited " + std::to_string(waited_reader) + " s on the reader (busy " +
        std::to_string(reader_busy) + " s)");
  WorkerSeconds summed;
  for (const WorkerSeconds& w : worker_seconds) {
    summed.parse += w.parse;
    summed.trim += w.trim;
  }
  trace("fastq-trim: workers' thread-seconds: parsing and duplication " +
        std::to_string(summed.parse) + ", engine " + std::to_string(summed.trim));
  writer.finish();
  trace("fastq-trim: writer finished");
  engine->finish(tallies[0]);
  trace("fastq-trim: reads trimmed and written");
  const std::string engine_name = engine->name();
  // The devices are done with. A process about to exit hands their
  // teardown (0.13-0.15 s, run 32c) to a thread, which runs while the
  // counts are merged and the reports written; the engine, whose buffers
  // go with it, is left to the exit. (SEQFUSE_TRIM_EARLY_END set, to 0 or
  // anything, leaves the whole teardown to the exit: a measuring knob.)
  std::jthread devices_ended;
  if (options.exits_after && device.gpu && engine_name != "cpu" &&
      std::getenv("SEQFUSE_TRIM_EARLY_END") == nullptr) {
    (void)engine.release();
    devices_ended = std::jthread([devices = device.devices]() mutable {
      std::sort(devices.begin(), devices.end());  // gpu:0,0 is one device
      devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
      for (const int index : devices) gpu::end_device(index);
      trace("fastq-trim: devices ended");
    });
  }

  TrimTally total(glance1.read_length, length2);
  TrimSummary summary;
  // The adapter sequences are listed from the workers' counts as they
  // stand (adapter_listing.hpp); everything else is summed.
  std::vector<const AdapterCounts*> cut1, cut2;
  for (const TrimTally& t : tallies) {
    total.merge_numbers(t);
    cut1.push_back(&t.counts.adapters_read1);
    cut2.push_back(&t.counts.adapters_read2);
  }
  trace("fastq-trim: counts merged");
  summary.reads_in = total.reads_in;
  summary.bases_in = total.bases_in;
  summary.reads_out = total.reads_out;
  summary.bases_out = total.bases_out;

  FastpReport fastp;
  fastp.paired = paired;
  fastp.read1_before = &total.before1;
  fastp.read1_after = &total.after1;
  if (paired) {
    fastp.read2_before = &total.before2;
    fastp.read2_after = &total.after2;
  }
  fastp.counts = &total.counts;
  fastp.adapters1 = list_adapters(cut1, threads);
  if (paired) fastp.adapters2 = list_adapters(cut2, threads);
  trace("fastq-trim: adapter sequences listed");
  if (duplication) fastp.duplication_rate = duplication->rate();
  fastp.adapter_cutting = adapter_cutting;
  if (!plan.adapter1.empty()) fastp.adapter1 = plan.adapter1;
  if (!plan.adapter2.empty()) fastp.adapter2 = plan.adapter2;
  fastp.polyx_trimming = plan.settings.poly_x;
  fastp.correction = plan.settings.correction;
  fastp.complexity_filter = plan.settings.filter.complexity;
  fastp.command = options.command_line;
  fastp.title = options.report_title;
  if (json_file) {
    OutputFileStream out(*json_file);
    write_fastp_json(fastp, out);
  }
  trace("fastq-trim: JSON written");
  if (html_file) {
    OutputFileStream out(*html_file);
    write_fastp_html(fastp, out);
  }
  trace("fastq-trim: HTML written");
  // Committed together, after every byte is written. Outputs written
  // through (stdout, a device) first: their commit flushes the last bytes
  // and can still fail (/dev/full) before any file is renamed into place.
  std::vector<OutputFile*> outputs;
  for (Sink& sink : sinks)
    if (sink.file) outputs.push_back(sink.file.get());
  for (OutputFile* report_file : {json_file.get(), html_file.get()})
    if (report_file) outputs.push_back(report_file);
  for (const bool through : {true, false})
    for (OutputFile* output : outputs)
      if (output->written_through() == through) output->commit();
  trace("fastq-trim: outputs committed");

  summary.adapter1 = plan.adapter1;
  summary.adapter2 = plan.adapter2;
  summary.poly_g = plan.settings.poly_g;
  summary.engine = engine_name;
  const double seconds = clock.seconds();
  // Pairs are counted as pairs on the line (the totals count reads).
  const std::uint64_t divisor = paired ? 2 : 1;
  const char* unit = paired ? " read pairs (" : " reads (";
  report.summary(std::to_string(summary.reads_in / divisor) + unit +
                     si_quantity(static_cast<double>(summary.bases_in), "bp") + ") in, " +
                     std::to_string(summary.reads_out / divisor) + " passed (" +
                     si_quantity(static_cast<double>(summary.bases_out), "bp") + "), on " +
                     summary.engine,
                 seconds, rate(static_cast<double>(summary.reads_in), seconds, "reads"));
  if (options.exits_after) {  // see TrimOptions::exits_after
    (void)engine.release();
    (void)source_owner.release();
    (void)groups_owner.release();
    (void)texts_owner.release();
    (void)duplication.release();
  }
  return summary;
}

}  // namespace seqfuse::preprocess
