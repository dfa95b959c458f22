// The steps of the GPU engine (gpu_align_engine.cpp) that the one-device
// run and the several-worker run (gpu_align_multi.cpp) share, so that both
// score, keep and trace hits the same way. Compiled only in builds with a
// GPU backend; internal to the GPU engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "align/engine.hpp"
#include "align/gpu_traceback.hpp"
#include "align/top_hits.hpp"
#include "gpu/align/pair_score.hpp"

namespace seqfuse::align {

// Results held at once on the GPU path: queries are scored in chunks so that
// chunk x targets stays under this many scores (768 MB). A chunk is where
// the device's launches wait for the host's selection of hits, so chunks
// should hold many queries: 15 against a 2 G-residue database of 4.4 M
// proteins (2^24 made it 3, and 4 round trips for 10 queries).
inline constexpr std::size_t kMaxScoresPerChunk = std::size_t{1} << 26;

// Device memory per batch of the pairs scorer and of the tracer; 0: their
// default share of what is free (one worker per device). Workers sharing a
// device (gpu:0,0) split it instead of each taking the default share.
struct DeviceBudgets {
  std::uint64_t score = 0;
  std::uint64_t trace = 0;
};

// --pairs on the current device: out[k] is pair k scored (and traced with
// job.traceback, each traced score checked against the scored one); adds
// the pairs, cells and device seconds to `stats`.
[[nodiscard]] std::vector<AlignResult> score_pairs_on_gpu(
    const AlignJob& job, const ScoringScheme& scheme, const EncodedSequences& queries,
    const EncodedSequences& targets, std::span<const Codes> q, std::span<const Codes> t,
    DeviceBudgets budgets, AlignStats& stats);

// hits becomes the kept hits of queries [first, first + kept.size()) in
// output order, traced by `tracer` when it is not null (each traced score
// checked against the search's). The tracer holds the queries and either
// the targets of `kept_targets` (sorted, non-empty) or, when it is empty,
// the targets from `target_base` on.
void kept_to_hits(std::span<const std::vector<ScoredTarget>> kept, std::size_t first,
                  std::span<const std::uint32_t> kept_targets, std::uint32_t target_base,
                  GpuTracer* tracer, std::vector<AlignHit>& hits);

// kept[i] gets the best hits of query first + i among scores[i * part.size()
// ..] (a chunk of score_all against `part`), merged with what it held, on
// `threads` host threads.
void keep_top_of_chunk(const AlignJob& job, std::span<const gpu::PairScore> scores,
                       TargetRange part, std::size_t first, std::size_t count,
                       std::span<std::vector<ScoredTarget>> kept, unsigned threads);

// Residues of targets one part of a search holds on a device with
// `free_bytes` free (the job's or the tunables' forced size first).
[[nodiscard]] std::uint64_t part_residues(const AlignJob& job, std::uint64_t residues,
                                          std::uint64_t longest, std::uint64_t free_bytes);

// Every query scored against `parts` one after another on the current
// device (the next part uploaded while one is scored), kept[query] getting
// its best hits over all parts. Returns the device seconds. Returns early,
// with kept incomplete, once `stopping` (when given) says so.
double score_in_parts(const AlignJob& job, const ScoringScheme& scheme,
                      const EncodedSequences& queries, const EncodedSequences& targets,
                      std::span<const TargetRange> parts,
                      std::vector<std::vector<ScoredTarget>>& kept, unsigned threads,
                      const std::function<bool()>& stopping);

// The targets some hit of `kept` holds, sorted, each once.
[[nodiscard]] std::vector<std::uint32_t> kept_target_list(
    std::span<const std::vector<ScoredTarget>> kept);

// Search, all-against-all and pairs on the job's several GPU workers
// (job.devices.size() > 1), hits handed to `emit` exactly as one device
// hands them (gpu_align_multi.cpp).
AlignStats run_on_gpus(const AlignJob& job, const ScoringScheme& scheme,
                       const EncodedSequences& queries, const EncodedSequences& against,
                       const EmitHits& emit);

}  // namespace seqfuse::align
