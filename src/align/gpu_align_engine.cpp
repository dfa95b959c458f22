// The GPU engine behind AlignEngine: --pairs through the pairs kernel
// (GpuPairScorer), search and all-against-all through the search kernels
// with the target set resident (GpuScorer) or, when it does not fit, in
// parts streamed one after another; --traceback on the GPU too (GpuTracer),
// each traced score checked against the scored one. Several GPU workers
// (--device gpu:0,1,...) go to gpu_align_multi.cpp, which shares the steps
// of gpu_search_steps.hpp. Compiled only in builds with a GPU backend
// (gpu_absent.cpp stands in otherwise).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "align/align_params.hpp"
#include "align/engine.hpp"
#include "align/gpu_pair_scores.hpp"
#include "align/gpu_params.hpp"
#include "align/gpu_scores.hpp"
#include "align/gpu_search_steps.hpp"
#include "align/gpu_traceback.hpp"
#include "align/part_pipeline.hpp"
#include "align/top_hits.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::align {
namespace {

AlignResult to_result(const gpu::PairScore& s) {
  AlignResult r;
  r.score = s.score;
  r.query_end = s.query_end;
  r.target_end = s.target_end;
  return r;
}

// Traced alignments must land on the scores the GPU found: a cheap check that
// the two engines agree on every pair that is written out.
AlignResult checked_against_score(AlignResult traced, const gpu::PairScore& scored) {
  if (traced.score != scored.score || traced.query_end != scored.query_end ||
      traced.target_end != scored.target_end)
    throw Error("internal: GPU score " + std::to_string(scored.score) +
                " differs from the traced alignment's " + std::to_string(traced.score));
  return traced;
}

}  // namespace

// --pairs on the GPU: scores from the pairs kernel (one thread per pair,
// gpu/align/score_pairs.cu); with --traceback the pairs are traced on the GPU
// too and each traced score must equal the score kernel's.
std::vector<AlignResult> score_pairs_on_gpu(const AlignJob& job, const ScoringScheme& scheme,
                                            const EncodedSequences& queries,
                                            const EncodedSequences& targets,
                                            std::span<const Codes> q, std::span<const Codes> t,
                                            DeviceBudgets budgets, AlignStats& stats) {
  // With --traceback the tracer uploads its copy of the sequences and plans
  // its batches on a thread of its own while the score kernel runs (1 M
  // pairs of 1,000 bp on an H100: 0.55 s and 0.4 s), when the sequences take
  // a small share of the device: the scorer sizes its batches by what is
  // free when it starts. jthread: joined on every way out of this scope.
  std::unique_ptr<GpuTracer> tracer;
  std::vector<PairIndex> pairs;
  std::exception_ptr tracer_error;
  const auto build_tracer = [&, device = job.traceback ? gpu::current_device() : 0] {
    try {
      gpu::use_device(device);
      tracer = std::make_unique<GpuTracer>(scheme, job.mode, queries, targets, budgets.trace,
                                           job.threads);
      pairs.resize(q.size());
      for (std::size_t k = 0; k < pairs.size(); ++k)
        pairs[k] = {static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k)};
      tracer->prepare(pairs);
    } catch (...) {
      tracer_error = std::current_exception();
    }
  };
  const bool trace_beside =
      job.traceback &&
      queries.flat_codes().size() + targets.flat_codes().size() <= gpu::free_device_memory() / 4;
  std::jthread tracer_builder;
  if (trace_beside) tracer_builder = std::jthread(build_tracer);
  std::vector<AlignResult> scores;
  {  // the scorer's device memory is returned before the tracer sizes its batches
    GpuPairScorer scorer(scheme, job.mode, budgets.score, job.threads);
    scorer.score(queries, targets, scores);
    stats.device_seconds += scorer.device_seconds();
  }
  seqfuse::trace("align: pairs scored");
  if (job.traceback) {
    if (trace_beside)
      tracer_builder.join();
    else
      build_tracer();
    if (tracer_error) std::rethrow_exception(tracer_error);
    if (pairs.size() != scores.size()) throw Error("internal: traced and scored pairs differ");
    std::vector<AlignResult> traced(scores.size());
    tracer->align_pairs(pairs, traced);
    for (std::size_t k = 0; k < scores.size(); ++k)
      scores[k] = checked_against_score(
          std::move(traced[k]), {scores[k].score, scores[k].query_end, scores[k].target_end});
    stats.device_seconds += tracer->device_seconds();
    seqfuse::trace("align: pairs traced");
  }
  for (std::size_t k = 0; k < scores.size(); ++k)
    stats.cells += std::uint64_t{q[k].size()} * t[k].size();
  stats.pairs += scores.size();
  return scores;
}

void kept_to_hits(std::span<const std::vector<ScoredTarget>> kept, std::size_t first,
                  std::span<const std::uint32_t> kept_targets, std::uint32_t target_base,
                  GpuTracer* tracer, std::vector<AlignHit>& hits) {
  hits.clear();
  for (std::size_t i = 0; i < kept.size(); ++i)
    for (const ScoredTarget& hit : kept[i])
      hits.push_back({static_cast<std::uint32_t>(first + i), hit.target, to_result(hit.score)});
  if (tracer == nullptr) return;
  std::vector<PairIndex> pairs;
  pairs.reserve(hits.size());
  for (const AlignHit& hit : hits) {
    std::uint32_t target = hit.target - target_base;  // its index in the tracer's targets
    if (!kept_targets.empty())
      target = static_cast<std::uint32_t>(
          std::lower_bound(kept_targets.begin(), kept_targets.end(), hit.target) -
          kept_targets.begin());
    pairs.push_back({hit.query, target});
  }
  std::vector<AlignResult> traced(pairs.size());
  tracer->align_pairs(pairs, traced);
  for (std::size_t k = 0; k < hits.size(); ++k) {
    const gpu::PairScore scored{hits[k].result.score, hits[k].result.query_end,
                                hits[k].result.target_end};
    hits[k].result = checked_against_score(std::move(traced[k]), scored);
  }
}

void keep_top_of_chunk(const AlignJob& job, std::span<const gpu::PairScore> scores,
                       TargetRange part, std::size_t first, std::size_t count,
                       std::span<std::vector<ScoredTarget>> kept, unsigned threads) {
  // Queries on threads of their own (a query against 4.4 M targets takes ~20 ms).
  parallel_chunks(count, 1, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t query = first + i;
      const std::span<const gpu::PairScore> row = scores.subspan(i * part.size(), part.size());
      // All against all scores the whole square: a record's hits are its
      // row but itself, the same as searching it against all the others.
      keep_top_of_part(row, part, job.layout == PairLayout::all_vs_all ? query : kNoSkip, job.top,
                       kept[i]);
    }
  });
}

// Residues of targets one part of a GPU search holds. Parts pipeline the
// upload: part k + 1 is uploaded and interleaved (about 0.5 s per G
// residues on an H100) while part k is scored, so only the first part's
// upload is waited for; each part costs launches and a tail of its own. A
// 2 G-residue set took 5.29-5.80 s in 3 to 9 parts against 5.86-6.29 s
// resident on an H100
// (bench/results/2026-11-24-nvidia-h100-run18-session10.md).
// Memory: a resident residue takes 1 byte and each query in flight 4 bytes
// of edges per residue (score_db16.cu). Two parts are scored at once
// (run_part_pipeline), each with at least one lane pair (two queries) of
// edges: the two parts (or one and the tracer's copy of the whole set) and
// four queries' edges fit in 3/4 of free memory. Greedy parts of at most
// residues / 4 + longest hold more than residues / 4 each but the last:
// four at most.
std::uint64_t part_residues(const AlignJob& job, std::uint64_t residues, std::uint64_t longest,
                            std::uint64_t free_bytes) {
  if (job.gpu_part_residues != 0) return job.gpu_part_residues;
  if (const std::uint64_t forced = align_tunables().part_residues; forced != 0) return forced;
  constexpr std::uint64_t kMinPart = std::uint64_t{512} << 20;
  constexpr std::uint64_t kEdgeBytes = 4 * 4;  // per residue, four queries in flight
  const std::uint64_t fits = free_bytes / 4 * 3 / (2 + kEdgeBytes);
  return std::min(std::max(residues / 4 + longest, kMinPart), fits);
}

double score_in_parts(const AlignJob& job, const ScoringScheme& scheme,
                      const EncodedSequences& queries, const EncodedSequences& targets,
                      std::span<const TargetRange> parts,
                      std::vector<std::vector<ScoredTarget>>& kept, unsigned threads,
                      const std::function<bool()>& stopping) {
  const std::size_t query_count = queries.size();
  kept.resize(query_count);
  // One chunking for every part, so that chunk c holds the same queries in
  // each (their hits merge in part order).
  std::size_t largest = 1;
  for (const TargetRange& part : parts) largest = std::max<std::size_t>(largest, part.size());
  const std::size_t chunk = std::max<std::size_t>(1, kMaxScoresPerChunk / largest);
  const auto queries_of = [&](std::size_t c) {
    return std::pair(c * chunk, std::min(chunk, query_count - c * chunk));
  };
  std::vector<std::unique_ptr<GpuScorer>> scorers(parts.size());
  std::vector<std::vector<gpu::PairScore>> scores(parts.size());
  gpu::DeviceTimeline timeline;  // the parts' kernels overlap: counted once
  Stopwatch clock;               // from the first part's upload on
  double upload_seconds = 0;
  PartSteps steps;
  steps.build = [&, device = gpu::current_device()](std::size_t p) {
    gpu::use_device(device);
    scorers[p] =
        std::make_unique<GpuScorer>(scheme, job.mode, targets, parts[p], threads, &timeline);
    if (p == 0) upload_seconds = clock.seconds();
    seqfuse::trace("align search: part " + std::to_string(p + 1) + " of " +
                   std::to_string(parts.size()) + " (" + std::to_string(parts[p].size()) +
                   " targets) on the device");
  };
  steps.score = [&](std::size_t p, std::size_t c) {
    const auto [first, count] = queries_of(c);
    scorers[p]->score_all(queries, first, count, scores[p], threads);
  };
  steps.keep = [&](std::size_t p, std::size_t c) {
    const auto [first, count] = queries_of(c);
    keep_top_of_chunk(job, scores[p], parts[p], first, count, std::span(kept).subspan(first, count),
                      threads);
  };
  steps.release = [&](std::size_t p) {
    scorers[p].reset();  // its device memory back before part p + 2 is built
    scores[p] = {};
  };
  steps.stopping = stopping;
  run_part_pipeline(parts.size(), (query_count + chunk - 1) / chunk, steps);
  const double busy = timeline.busy_seconds();
  const auto ms = [](double s) { return std::to_string(std::lround(s * 1000)) + " ms"; };
  seqfuse::trace("align search: kernels busy " + ms(busy) + " of the " +
                 ms(clock.seconds() - upload_seconds) + " from the first part's upload on");
  return busy;
}

std::vector<std::uint32_t> kept_target_list(std::span<const std::vector<ScoredTarget>> kept) {
  std::vector<std::uint32_t> targets;
  for (const auto& row : kept)
    for (const ScoredTarget& hit : row) targets.push_back(hit.target);
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

namespace {

// --pairs on one device: scores (and traces) every pair, then hands them
// over in slices.
AlignStats run_pairs_on_gpu(const AlignJob& job, const ScoringScheme& scheme,
                            const EncodedSequences& queries, const EncodedSequences& targets,
                            std::span<const Codes> q, std::span<const Codes> t,
                            const EmitHits& emit) {
  AlignStats stats;
  std::vector<AlignResult> scores =
      score_pairs_on_gpu(job, scheme, queries, targets, q, t, {}, stats);
  emit_pairs(scores, emit);
  return stats;
}

// Letters of queries [first, first + count).
std::uint64_t residues_of(const EncodedSequences& queries, std::size_t first, std::size_t count) {
  const std::span<const std::uint64_t> offsets = queries.offsets();
  return offsets[first + count] - offsets[first];
}

// The kept hits of queries [first, first + kept.size()) in output order, as
// AlignHits, traced on the GPU with --traceback (each traced score checked
// against the search's), handed to `emit`. `tracer` holds the queries and
// every target, or with parts only `kept_targets` (sorted: the targets some
// hit kept, so that a set too large for the device need not be uploaded
// again to trace a few of them); empty kept_targets: every target.
void emit_kept(const AlignJob& job, std::span<const std::vector<ScoredTarget>> kept,
               std::size_t first, std::span<const std::uint32_t> kept_targets, GpuTracer* tracer,
               std::vector<AlignHit>& hits, const EmitHits& emit) {
  kept_to_hits(kept, first, kept_targets, 0, tracer, hits);
  emit(hits);
  if (job.progress) job.progress(first + kept.size());
}

// Search and all-against-all on the GPU, the target set resident: targets
// uploaded once, queries scored in chunks, the top hits of each query kept
// (and traced with --traceback, on the GPU) and written chunk by chunk.
AlignStats run_resident_search_on_gpu(const AlignJob& job, const ScoringScheme& scheme,
                                      const EncodedSequences& queries,
                                      const EncodedSequences& targets, std::span<const Codes> q,
                                      const EmitHits& emit) {
  AlignStats stats;
  GpuScorer scorer(scheme, job.mode, targets, job.threads);
  std::unique_ptr<GpuTracer> tracer;
  if (job.traceback)
    tracer = std::make_unique<GpuTracer>(scheme, job.mode, queries, targets,
                                         /*device_budget_bytes=*/0, job.threads);
  std::vector<gpu::PairScore> scores;
  const TargetRange all{0, static_cast<std::uint32_t>(targets.size())};
  const std::size_t chunk =
      std::max<std::size_t>(1, kMaxScoresPerChunk / std::max<std::size_t>(targets.size(), 1));
  std::vector<std::vector<ScoredTarget>> kept;  // per query of a chunk
  std::vector<AlignHit> hits;
  for (std::size_t first = 0; first < q.size(); first += chunk) {
    const std::size_t count = std::min(chunk, q.size() - first);
    scorer.score_all(queries, first, count, scores, job.threads);
    stats.pairs += std::uint64_t{count} * targets.size();
    stats.cells += residues_of(queries, first, count) * targets.flat_codes().size();
    kept.assign(count, {});
    keep_top_of_chunk(job, scores, all, first, count, kept, job.threads);
    emit_kept(job, kept, first, {}, tracer.get(), hits, emit);
  }
  stats.device_seconds = scorer.device_seconds() + (tracer ? tracer->device_seconds() : 0.0);
  return stats;
}

// Search and all-against-all on the GPU with a target set in parts, one
// resident at a time beside the next one's upload: every query is scored
// against a part, its best hits merged with those of the parts before
// (merge_top keeps CpuEngine::search's order), and the hits are written
// once the last part is done.
AlignStats run_streamed_search_on_gpu(const AlignJob& job, const ScoringScheme& scheme,
                                      const EncodedSequences& queries,
                                      const EncodedSequences& targets, std::span<const Codes> q,
                                      std::span<const TargetRange> parts, const EmitHits& emit) {
  AlignStats stats;
  std::vector<std::vector<ScoredTarget>> kept;
  stats.device_seconds =
      score_in_parts(job, scheme, queries, targets, parts, kept, job.threads, {});
  stats.pairs = std::uint64_t{q.size()} * targets.size();
  stats.cells = queries.flat_codes().size() * targets.flat_codes().size();

  // Tracing needs only the kept targets on the device.
  const std::vector<std::uint32_t> kept_targets = kept_target_list(kept);
  // The tracer reads `subset` for pairs it traces on the CPU: it lives as long.
  EncodedSequences subset(scheme);
  std::unique_ptr<GpuTracer> tracer;
  if (job.traceback) {
    for (std::uint32_t k : kept_targets) subset.append_codes(targets[k]);
    tracer = std::make_unique<GpuTracer>(scheme, job.mode, queries, subset,
                                         /*device_budget_bytes=*/0, job.threads);
  }
  std::vector<AlignHit> hits;
  for (std::size_t first = 0; first < q.size();) {
    // Slices of about kPairsPerBatch hits.
    std::size_t last = first, held = 0;
    while (last < q.size() && (last == first || held + kept[last].size() <= kPairsPerBatch))
      held += kept[last++].size();
    emit_kept(job, std::span(kept).subspan(first, last - first), first, kept_targets, tracer.get(),
              hits, emit);
    first = last;
  }
  if (tracer) stats.device_seconds += tracer->device_seconds();
  return stats;
}

// The targets' upload and the scores' download go through pinned staging
// blocks once they pass 16 MiB (gpu::StagedFrom::prepared), and pinning a
// set takes 50 to 80 ms: started here, in the background, while the first
// part is planned. One set: pinning holds the driver, so the first part's
// build (its streams, buffers, copies) waited for both sets when two were
// pinned here (about 0.15 s, run 38h); a second set, where parts overlap,
// is pinned when first needed, while the first part is scored.
void prepare_staging(std::span<const TargetRange> parts, std::uint64_t residues,
                     std::size_t queries) {
  constexpr std::uint64_t kStagedBytes = std::uint64_t{16} << 20;
  if (parts.empty()) return;
  const std::uint64_t targets = parts.front().size();
  const std::uint64_t score_bytes =
      std::min<std::uint64_t>(queries * targets, std::uint64_t{1} << 24) * sizeof(gpu::PairScore);
  if (residues / parts.size() < kStagedBytes && score_bytes < kStagedBytes) return;
  gpu::prepare_staged_copies();
}

// The search takes the targets as one flat set: a view per target (64 MB
// for the big search's 4 M targets, about 0.3 s of page faults on a 2-core
// machine) would be made before the first part's upload.
AlignStats run_search_on_gpu(const AlignJob& job, const ScoringScheme& scheme,
                             const EncodedSequences& queries, const EncodedSequences& targets,
                             std::span<const Codes> q, const EmitHits& emit) {
  const std::uint64_t longest =
      longest_target(targets.offsets(), {0, static_cast<std::uint32_t>(targets.size())});
  const std::vector<TargetRange> parts = plan_target_parts(
      targets.offsets(),
      part_residues(job, targets.flat_codes().size(), longest, gpu::free_device_memory()));
  prepare_staging(parts, targets.flat_codes().size(), q.size());
  if (parts.size() <= 1) return run_resident_search_on_gpu(job, scheme, queries, targets, q, emit);
  return run_streamed_search_on_gpu(job, scheme, queries, targets, q, parts, emit);
}

class GpuAlignEngine final : public AlignEngine {
 public:
  explicit GpuAlignEngine(const ScoringScheme& scheme) : scheme_(scheme) {}

  AlignStats run(const AlignJob& job, const EncodedSequences& queries,
                 const EncodedSequences& against, const EmitHits& emit) override {
    // Several workers (--device gpu:0,1,...): the work split across them.
    if (job.devices.size() > 1) return run_on_gpus(job, scheme_, queries, against, emit);
    // One: on its device. The device was chosen on another thread (while the
    // input was read), and the current device is the calling thread's.
    if (!job.devices.empty()) gpu::use_device(job.devices.front());
    const std::vector<Codes> q = queries.views();
    if (job.layout == PairLayout::pairs)
      return run_pairs_on_gpu(job, scheme_, queries, against, q, against.views(), emit);
    return run_search_on_gpu(job, scheme_, queries, against, q, emit);
  }

 private:
  const ScoringScheme& scheme_;
};

}  // namespace

std::unique_ptr<AlignEngine> make_gpu_align_engine(const ScoringScheme& scheme) {
  return std::make_unique<GpuAlignEngine>(scheme);
}

bool gpu_can_score(const ScoringScheme& scheme) {
  return gpu::DeviceTargetSet::can_implement(gpu_score_params(scheme, AlignMode::local)) ==
         gpu::Status::kSuccess;
}

}  // namespace seqfuse::align
