// The GPU side of alignment, seen from src/: scores of many pairs computed by
// gpu/align/score_db.cu. Plain C++; in a build without a GPU backend,
// gpu_scores_compiled() is false and the other functions throw.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

// query_end and target_end of a local score computed without end cells.
inline constexpr int kEndNotComputed = -2;

[[nodiscard]] bool gpu_scores_compiled() noexcept;
// Whether the GPU engine takes this scheme (alphabet of at most 32 letters).
[[nodiscard]] bool gpu_can_score(const ScoringScheme& scheme);

// Targets uploaded once, then scored against any number of queries.
class GpuScorer {
 public:
  GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets);
  ~GpuScorer();
  GpuScorer(const GpuScorer&) = delete;
  GpuScorer& operator=(const GpuScorer&) = delete;

  // out[(q - first) * targets + t] for queries [first, first + count).
  // Without end_cells, local results may carry query_end = target_end =
  // kEndNotComputed: the search kernel is faster without finding them.
  void score_all(const EncodedSequences& queries, std::size_t first, std::size_t count,
                 std::vector<AlignResult>& out, bool end_cells = true);

  // Seconds spent inside score calls (upload, kernels, download).
  [[nodiscard]] double device_seconds() const noexcept { return device_seconds_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  double device_seconds_ = 0;
};

}  // namespace seqfuse::align
