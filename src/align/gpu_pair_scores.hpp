// The pairs score engine seen from src/: record k of the queries against
// record k of the targets, scores and end cells from gpu/align/score_pairs.cu
// (one thread per pair). `--pairs` on a GPU scores through it. Plain C++;
// compiled only in builds with a GPU backend.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

class GpuPairScorer {
 public:
  // device_budget_bytes: device memory per batch (0: a share of what is
  // free); threads: host threads that check and pack the letters.
  GpuPairScorer(const ScoringScheme& scheme, AlignMode mode, std::uint64_t device_budget_bytes = 0,
                unsigned threads = 1);
  ~GpuPairScorer();
  GpuPairScorer(const GpuPairScorer&) = delete;
  GpuPairScorer& operator=(const GpuPairScorer&) = delete;

  // out[k]: queries[k] against targets[k] (score and end cell, as
  // reference_score). Throws when the counts differ or the device refuses.
  void score(const EncodedSequences& queries, const EncodedSequences& targets,
             std::vector<AlignResult>& out);

  // Over all calls: seconds inside score() (packing, copies, kernels) and
  // inside the kernels alone (device events).
  [[nodiscard]] double device_seconds() const noexcept { return device_seconds_; }
  [[nodiscard]] double kernel_seconds() const noexcept { return kernel_seconds_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::uint64_t budget_ = 0;
  unsigned threads_ = 1;
  double device_seconds_ = 0;
  double kernel_seconds_ = 0;
};

}  // namespace seqfuse::align
