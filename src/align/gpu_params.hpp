// A scoring scheme as the GPU score engine takes it. Included only where a
// GPU backend is built (gpu_scores.cpp, the [gpu] tests).
#pragma once

#include "align/alignment.hpp"
#include "align/scoring.hpp"
#include "gpu/align/score_db.hpp"

namespace seqfuse::align {

[[nodiscard]] inline gpu::ScoreParams gpu_score_params(const ScoringScheme& scheme,
                                                       AlignMode mode) {
  gpu::ScoreParams p;
  p.local = mode == AlignMode::local;
  p.gap_open = scheme.gap_open();
  p.gap_extend = scheme.gap_extend();
  p.alphabet_size = static_cast<int>(scheme.alphabet_size());
  p.matrix.assign(scheme.table().begin(), scheme.table().end());
  return p;
}

}  // namespace seqfuse::align
