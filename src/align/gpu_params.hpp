// A scoring scheme as the GPU score engine takes it (gpu_scores.cpp, the
// [gpu] tests, the CPU emulation of the 16-bit search kernel). Plain C++.
#pragma once

#include <cstdlib>
#include <string_view>

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
  // The search runs in 32-bit lanes: the 16-bit kernel (score_db16.cu) is
  // exact but slower as it stands (H100, the protein search: 465 vs
  // 670 device GCUPS, bench/results/2026-11-24-nvidia-h100-run4.md).
  // SEQFUSE_ALIGN_LANES=16 selects it, for timing the two side by side
  // (scripts/device-align-lanes.sh); not an option for users.
  const char* lanes = std::getenv("SEQFUSE_ALIGN_LANES");
  p.narrow_lanes = lanes != nullptr && std::string_view(lanes) == "16";
  return p;
}

}  // namespace seqfuse::align
