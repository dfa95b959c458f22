// The GPU engine on several workers (--device gpu:0,1,...; gpu:0,0 puts two
// on one card). Search and all-against-all: each worker holds one range of
// the targets (device_split.hpp) resident on its device, or in parts one
// after another when the range does not fit, scores every query against it,
// keeps (and with --traceback traces, on its own device) its top hits per
// query; the writing thread merges the workers' hits chunk by chunk of
// queries (run_merged_chunks), so early queries are written while later
// ones score. --pairs: each worker scores a contiguous range of pairs, the
// results concatenated in pair order. Output equals one device's byte for
// byte. Compiled only in builds with a GPU backend.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "align/device_split.hpp"
#include "align/engine.hpp"
#include "align/gpu_scores.hpp"
#include "align/gpu_search_steps.hpp"
#include "align/gpu_traceback.hpp"
#include "core/device_workers.hpp"
#include "core/error.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::align {
namespace {

// What one worker may use of its device: free memory is measured once for
// each device before any worker allocates, and split between the workers
// that share the device (gpu:0,0), which would otherwise each size their
// batches by the same free memory.
struct WorkerMemory {
  std::uint64_t free_bytes = 0;  // this worker's share
  DeviceBudgets budgets;         // 0 (the defaults) when the device is its own
};

std::vector<WorkerMemory> measure_workers(const std::vector<int>& devices) {
  std::vector<WorkerMemory> memory(devices.size());
  // The calling thread's device back afterwards, also when one is refused.
  struct Restore {
    int prior = gpu::current_device();
    ~Restore() {
      try {
        gpu::use_device(prior);
      } catch (...) {  // it was current a moment ago; nothing to report from here
      }
    }
  } restore;
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto same = std::find(devices.begin(), devices.end(), devices[w]);
    const auto sharing =
        static_cast<std::uint64_t>(std::count(devices.begin(), devices.end(), devices[w]));
    if (same != devices.begin() + static_cast<std::ptrdiff_t>(w)) {
      memory[w] = memory[static_cast<std::size_t>(same - devices.begin())];
      continue;
    }
    gpu::use_device(devices[w]);
    memory[w].free_bytes = gpu::free_device_memory() / sharing;
    // The defaults' shares (score_pairs.cu: half, traceback.cu: three
    // quarters of what is free), of this worker's share.
    if (sharing > 1) memory[w].budgets = {memory[w].free_bytes / 2, memory[w].free_bytes / 4 * 3};
  }
  return memory;
}

// Host threads for each worker's selection of hits and CIGAR strings: the
// job's threads shared out (the writer formats on all of them).
unsigned worker_threads(const AlignJob& job) {
  return std::max(1u, job.threads / static_cast<unsigned>(job.devices.size()));
}

// Sequences: views (std::span<const Codes>) or an EncodedSequences.
template <class Sequences>
EncodedSequences copy_of(const ScoringScheme& scheme, const Sequences& sequences,
                         TargetRange range) {
  EncodedSequences copy(scheme);
  std::uint64_t residues = 0;
  for (std::uint32_t k = range.begin; k < range.end; ++k) residues += sequences[k].size();
  copy.reserve(residues, range.size());
  for (std::uint32_t k = range.begin; k < range.end; ++k) copy.append_codes(sequences[k]);
  return copy;
}

// The hits of one worker whose range fits its device: the range resident,
// queries scored chunk by chunk and each chunk's hits published at once.
void search_resident_range(const AlignJob& job, const ScoringScheme& scheme,
                           const EncodedSequences& queries, const EncodedSequences& targets,
                           TargetRange range, std::size_t chunk, std::size_t chunks,
                           const WorkerMemory& memory, std::size_t worker, ChunkExchange& exchange,
                           double& device_seconds) {
  const unsigned threads = worker_threads(job);
  GpuScorer scorer(scheme, job.mode, targets, range, threads);
  // The tracer holds the range's targets (it reads them on the host for the
  // pairs it traces on the CPU, so the copy lives as long as it does).
  EncodedSequences range_targets(scheme);
  std::unique_ptr<GpuTracer> tracer;
  if (job.traceback) {
    range_targets = copy_of(scheme, targets, range);
    tracer = std::make_unique<GpuTracer>(scheme, job.mode, queries, range_targets,
                                         memory.budgets.trace, threads);
  }
  std::vector<gpu::PairScore> scores;
  std::vector<std::vector<ScoredTarget>> kept;
  std::vector<AlignHit> hits;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * chunk;
    const std::size_t count = std::min(chunk, queries.size() - first);
    scorer.score_all(queries, first, count, scores, threads);
    kept.assign(count, {});
    keep_top_of_chunk(job, scores, range, first, count, kept, threads);
    kept_to_hits(kept, first, {}, range.begin, tracer.get(), hits);
    if (!exchange.publish(worker, c, hits)) break;
  }
  // Read once, at the end: the scorer's time goes over every launch's events.
  device_seconds = scorer.device_seconds() + (tracer ? tracer->device_seconds() : 0.0);
}

// The hits of one worker whose range is larger than its device holds: the
// range in parts one after another, as one device does with a set too large
// for it, so every query's hits are known only at the end (one chunk).
void search_range_in_parts(const AlignJob& job, const ScoringScheme& scheme,
                           const EncodedSequences& queries, const EncodedSequences& targets,
                           std::span<const TargetRange> parts, const WorkerMemory& memory,
                           std::size_t worker, ChunkExchange& exchange, double& device_seconds) {
  const unsigned threads = worker_threads(job);
  std::vector<std::vector<ScoredTarget>> kept;
  device_seconds = score_in_parts(job, scheme, queries, targets, parts, kept, threads,
                                  [&] { return exchange.stopping(); });
  if (exchange.stopping()) return;
  // Tracing needs only the kept targets on the device.
  const std::vector<std::uint32_t> kept_targets = kept_target_list(kept);
  EncodedSequences subset(scheme);  // read by the tracer as long as it lives
  std::unique_ptr<GpuTracer> tracer;
  if (job.traceback && !kept_targets.empty()) {
    for (std::uint32_t k : kept_targets) subset.append_codes(targets[k]);
    tracer = std::make_unique<GpuTracer>(scheme, job.mode, queries, subset, memory.budgets.trace,
                                         threads);
  }
  std::vector<AlignHit> hits;
  kept_to_hits(kept, 0, kept_targets, 0, tracer.get(), hits);
  if (tracer) device_seconds += tracer->device_seconds();
  (void)exchange.publish(worker, 0, hits);
}

AlignStats search_on_gpus(const AlignJob& job, const ScoringScheme& scheme,
                          const EncodedSequences& queries, const EncodedSequences& targets,
                          const EmitHits& emit) {
  const std::size_t workers = job.devices.size();
  // The targets as one flat set: no view per target (see run_search_on_gpu).
  const std::vector<Codes> q = queries.views();
  const std::span<const std::uint64_t> offsets = targets.offsets();
  const std::vector<TargetRange> ranges = split_targets_by_residues(offsets, workers);
  const std::vector<WorkerMemory> memory = measure_workers(job.devices);
  std::vector<std::vector<TargetRange>> parts(workers);
  bool resident = true;
  std::size_t widest = 1;
  for (std::size_t w = 0; w < workers; ++w) {
    const TargetRange range = ranges[w];
    const std::uint64_t longest = longest_target(offsets, range);
    const std::uint64_t residues = offsets[range.end] - offsets[range.begin];
    parts[w] = plan_range_parts(offsets, range,
                                part_residues(job, residues, longest, memory[w].free_bytes));
    resident = resident && parts[w].size() <= 1;
    widest = std::max<std::size_t>(widest, range.size());
  }
  // Resident ranges stream chunks of queries (of one device's size for the
  // widest range); a range in parts knows its hits only at the end, as one
  // device with a set in parts does: then one chunk of every query.
  const std::size_t chunk = resident ? std::max<std::size_t>(1, kMaxScoresPerChunk / widest)
                                     : std::max<std::size_t>(1, q.size());
  const std::size_t chunks = (q.size() + chunk - 1) / chunk;
  std::vector<double> seconds(workers, 0.0);
  const ChunkWork work = [&](std::size_t w, int, ChunkExchange& exchange) {
    if (ranges[w].size() == 0) {  // more workers than targets
      std::vector<AlignHit> none;
      for (std::size_t c = 0; c < chunks; ++c)
        if (!exchange.publish(w, c, none)) return;
      return;
    }
    if (resident)
      search_resident_range(job, scheme, queries, targets, ranges[w], chunk, chunks, memory[w], w,
                            exchange, seconds[w]);
    else
      search_range_in_parts(job, scheme, queries, targets, parts[w], memory[w], w, exchange,
                            seconds[w]);
  };
  const ConsumeChunk consume = [&](std::size_t c, std::vector<AlignHit>& merged) {
    // Slices of about kPairsPerBatch hits, cut between queries.
    for (std::size_t begin = 0; begin < merged.size();) {
      std::size_t end = std::min(merged.size(), begin + kPairsPerBatch);
      while (end < merged.size() && merged[end].query == merged[end - 1].query) ++end;
      emit(std::span<const AlignHit>(merged).subspan(begin, end - begin));
      begin = end;
    }
    if (job.progress) job.progress(std::min(q.size(), (c + 1) * chunk));
  };
  run_merged_chunks(job.devices, chunks, job.top, work, consume,
                    [](int device) { gpu::use_device(device); });
  AlignStats stats;
  stats.pairs = std::uint64_t{q.size()} * targets.size();
  stats.cells = queries.flat_codes().size() * targets.flat_codes().size();
  // The workers run side by side: the device time is the longest one's.
  stats.device_seconds = *std::max_element(seconds.begin(), seconds.end());
  return stats;
}

AlignStats pairs_on_gpus(const AlignJob& job, const ScoringScheme& scheme,
                         const EncodedSequences& queries, const EncodedSequences& targets,
                         const EmitHits& emit) {
  const std::size_t workers = job.devices.size();
  const std::vector<Codes> q = queries.views();
  const std::vector<Codes> t = targets.views();
  const std::vector<TargetRange> ranges = split_pairs_by_cells(q, t, workers);
  const std::vector<WorkerMemory> memory = measure_workers(job.devices);
  std::vector<std::vector<AlignResult>> results(workers);
  std::vector<AlignStats> part_stats(workers);
  AlignJob part_job = job;
  part_job.threads = worker_threads(job);
  part_job.progress = {};
  run_device_workers(job.devices, [&](std::stop_token, std::size_t w, int) {
    const TargetRange range = ranges[w];
    if (range.size() == 0) return;
    const EncodedSequences part_queries = copy_of(scheme, q, range);
    const EncodedSequences part_targets = copy_of(scheme, t, range);
    results[w] =
        score_pairs_on_gpu(part_job, scheme, part_queries, part_targets, part_queries.views(),
                           part_targets.views(), memory[w].budgets, part_stats[w]);
    if (results[w].size() != range.size())
      throw Error("internal: a GPU worker scored " + std::to_string(results[w].size()) +
                  " pairs of " + std::to_string(range.size()));
  });
  // Pair order: the workers' ranges one after another.
  std::vector<AlignResult> all;
  all.reserve(q.size());
  AlignStats stats;
  for (std::size_t w = 0; w < workers; ++w) {
    for (AlignResult& result : results[w]) all.push_back(std::move(result));
    results[w] = {};
    stats.pairs += part_stats[w].pairs;
    stats.cells += part_stats[w].cells;
    stats.device_seconds = std::max(stats.device_seconds, part_stats[w].device_seconds);
  }
  emit_pairs(all, emit);
  return stats;
}

}  // namespace

AlignStats run_on_gpus(const AlignJob& job, const ScoringScheme& scheme,
                       const EncodedSequences& queries, const EncodedSequences& against,
                       const EmitHits& emit) {
  if (job.devices.size() < 2) throw Error("internal: a multi-GPU run with one worker");
  if (job.layout == PairLayout::pairs) return pairs_on_gpus(job, scheme, queries, against, emit);
  return search_on_gpus(job, scheme, queries, against, emit);
}

}  // namespace seqfuse::align
