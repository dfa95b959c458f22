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
  GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets,
            TargetRange part, unsigned threads);
  ~GpuScorer();
  GpuScorer(const GpuScorer&) = delete;
  GpuScorer& operator=(const GpuScorer&) = delete;

  // out[(q - first) * targets + t] for queries [first, first + count):
  // scores and end cells, kept compact (a search of 500 x 20,000 proteins
  // has 10 M of them; the caller makes AlignResults of the hits it keeps).
  // The scores are put in place on `threads` host threads.
  void score_all(const EncodedSequences& queries, std::size_t first, std::size_t count,
                 std::vector<gpu::PairScore>& out, unsigned threads);

  // Seconds spent inside score calls (upload, kernels, download).
  [[nodiscard]] double device_seconds() const noexcept { return device_seconds_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  double device_seconds_ = 0;
};

}  // namespace seqfuse::align
