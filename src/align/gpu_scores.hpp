// The GPU side of alignment, seen from src/: scores of many pairs computed by
// gpu/align/score_db.cu. Plain C++; compiled only in builds with a GPU
// backend.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "align/alignment.hpp"
#include "align/scoring.hpp"
#include "align/top_hits.hpp"
#include "gpu/align/score_db.hpp"

namespace seqfuse::align {

// Targets uploaded once, then scored against any number of queries.
class GpuScorer {
 public:
  // The letters go up through pinned staging blocks filled on `threads`
  // host threads.
  GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets,
            unsigned threads);
  // Only targets [part.begin, part.end): one part of a set too large for
  // the device, whose scores then index the part (target part.begin is 0).
  // The kernels are timed on `timeline` where one is given (the parts of a
  // search on one device share one), else on the scorer's own.
  GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets,
            TargetRange part, unsigned threads, gpu::DeviceTimeline* timeline = nullptr);
  ~GpuScorer();
  GpuScorer(const GpuScorer&) = delete;
  GpuScorer& operator=(const GpuScorer&) = delete;

  // out[(q - first) * targets + t] for queries [first, first + count):
  // scores and end cells, kept compact (a search of 500 x 20,000 proteins
  // has 10 M of them; the caller makes AlignResults of the hits it keeps).
  // The scores are put in place on `threads` host threads.
  void score_all(const EncodedSequences& queries, std::size_t first, std::size_t count,
                 std::vector<gpu::PairScore>& out, unsigned threads);

  // Seconds the device spent in the score calls' kernels (their timeline's
  // busy time: with a shared timeline, every scorer's on it).
  [[nodiscard]] double device_seconds() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace seqfuse::align
