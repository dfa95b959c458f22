// align-sw / align-nw on several GPU workers (--device gpu:0,1,...): how the
// work is cut across them and how their hits are put back into the order
// one device writes. Plain C++ with no GPU call, so all of it is tested on
// the CPU with fake devices (tests/unit/test_align_devices.cpp); the GPU
// engine (gpu_align_multi.cpp) plugs its scoring into it.
//
// Search and all-against-all: the targets are cut into one contiguous range
// per worker, of near-equal residues; each worker scores every query against
// its range and keeps its own top N per query. Targets of one worker all come
// before those of the next, so merging the workers' lists per query by
// decreasing score, ties to the smaller (global) target index, is the rule
// of the parts a one-device run streams one after another (merge_top) and
// of align-merge (ties to the earlier part); the top N of the union of the
// workers' top N is the whole set's top N, so the output is the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "align/engine.hpp"
#include "align/top_hits.hpp"
#include "core/device_workers.hpp"

namespace seqfuse::align {

// One contiguous range of targets per worker, of near-equal weight (length
// + 1 per target, so empty records count: the --db-part rule). offsets:
// size() + 1 entries. Ranges may be empty (more workers than targets).
[[nodiscard]] std::vector<TargetRange> split_targets_by_residues(
    std::span<const std::uint64_t> offsets, std::size_t workers);

// --pairs: one contiguous range of pairs per worker, of near-equal cells
// (query length x target length, + 1 so empty pairs count).
[[nodiscard]] std::vector<TargetRange> split_pairs_by_cells(std::span<const Codes> queries,
                                                            std::span<const Codes> targets,
                                                            std::size_t workers);

// The parts (plan_target_parts) of one worker's `range`, each of at most
// `max_residues` residues; indices are global. Empty range: no part.
[[nodiscard]] std::vector<TargetRange> plan_range_parts(std::span<const std::uint64_t> offsets,
                                                        TargetRange range,
                                                        std::uint64_t max_residues);

// Whether hit a goes before hit b of the same query: decreasing score, ties
// in target order (better_hit's rule, on results that may be traced).
[[nodiscard]] inline bool hit_before(const AlignHit& a, const AlignHit& b) noexcept {
  return a.result.score != b.result.score ? a.result.score > b.result.score : a.target < b.target;
}

// Merges the workers' kept hits of one chunk of queries into `out`:
// per_worker[w] holds worker w's hits, queries ascending and each query's
// hits in hit_before order; out gets, query by query, the `top` first (all
// when top is 0) of the union in hit_before order. Results are moved out of
// per_worker. Throws Error when a list is out of order.
void merge_worker_hits(std::span<std::vector<AlignHit>> per_worker, std::size_t top,
                       std::vector<AlignHit>& out);

// Handed to each worker of run_merged_chunks: publish() gives the exchange
// the worker's hits of its next chunk (chunks in order, each exactly once).
class ChunkExchange {
 public:
  virtual ~ChunkExchange() = default;
  // Blocks while this worker is too far ahead of the writer (so that only a
  // few chunks of hits are held at once). Returns false when the run is
  // stopping (another worker failed, or the writer did): the worker should
  // then return without more work.
  [[nodiscard]] virtual bool publish(std::size_t worker, std::size_t chunk,
                                     std::vector<AlignHit>& hits) = 0;
  // Whether the run is stopping; long work between publishes checks it.
  [[nodiscard]] virtual bool stopping() const = 0;
};

// work(worker, device, exchange): one worker's whole share, on its own
// thread with its device current; publishes chunks 0 .. chunks - 1.
using ChunkWork = std::function<void(std::size_t worker, int device, ChunkExchange& exchange)>;
// consume(chunk, merged): on the calling thread, chunks in order, each once
// every worker has published it; `merged` as merge_worker_hits gives it.
using ConsumeChunk = std::function<void(std::size_t chunk, std::vector<AlignHit>& merged)>;

// Chunks at most this far ahead of the one being written: a worker waits in
// publish() beyond it.
inline constexpr std::size_t kChunksAhead = 2;

// Runs `work` on every worker (run_device_workers) while the calling thread
// merges and consumes each chunk as soon as all workers have published it,
// so early queries are written while later ones score. A worker's failure
// stops the others and is rethrown (the first in worker order) after all are
// joined; a failure of `consume` stops the workers and is rethrown, so
// nothing is left running and no partial run looks complete.
void run_merged_chunks(const std::vector<int>& devices, std::size_t chunks, std::size_t top,
                       const ChunkWork& work, const ConsumeChunk& consume, const BindDevice& bind);

}  // namespace seqfuse::align
