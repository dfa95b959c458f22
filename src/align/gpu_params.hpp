// A scoring scheme as the GPU score engine takes it (gpu_scores.cpp, the
// [gpu] tests, the CPU emulation of the 16-bit search kernel). Plain C++.
#pragma once

#include "align/align_params.hpp"
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
  // The search runs in 16-bit lanes (score_db16.cu) where the scoring
  // allows it, unless the tunables say otherwise (align_params.hpp).
  p.narrow_lanes = align_tunables().narrow_lanes;
  p.long_factor = align_tunables().long_factor;
  return p;
}

}  // namespace seqfuse::align
