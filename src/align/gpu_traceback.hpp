// The GPU side of --traceback, seen from src/: full alignments (begin and
// end cells, CIGAR, identity) of many pairs computed by
// gpu/align/traceback.cu, equal to reference_align. Plain C++; compiled only
// in builds with a GPU backend.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "align/alignment.hpp"
#include "align/cpu_engine.hpp"
#include "align/scoring.hpp"
#include "align/traced_result.hpp"

namespace seqfuse::align {

// Queries and targets uploaded once, then any number of pair lists traced.
class GpuTracer {
 public:
  // device_budget_bytes: scratch device memory per batch (0: a share of
  // what is free); tests lower it to exercise the CPU fallback. `threads`
  // host threads build the CIGAR strings and trace the pairs the device
  // refuses.
  GpuTracer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& queries,
            const EncodedSequences& targets, std::uint64_t device_budget_bytes = 0,
            unsigned threads = 1);
  ~GpuTracer();
  GpuTracer(const GpuTracer&) = delete;
  GpuTracer& operator=(const GpuTracer&) = delete;

  // out[k]: queries[pairs[k].query] aligned with targets[pairs[k].target].
  // Pairs whose matrix alone would not fit device memory are traced on the
  // CPU by the scalar reference (same results, slower).
  void align_pairs(std::span<const PairIndex> pairs, std::span<AlignResult> out);

  // Plans `pairs` ahead: host work that may overlap other device work, for
  // the next align_pairs() call with the same list (any other list is
  // planned afresh).
  void prepare(std::span<const PairIndex> pairs);

  [[nodiscard]] double device_seconds() const noexcept { return device_seconds_; }
  // Pairs the device refused and the CPU traced, over all calls.
  [[nodiscard]] std::uint64_t cpu_pairs() const noexcept { return cpu_pairs_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::uint64_t budget_ = 0;
  unsigned threads_ = 1;
  double device_seconds_ = 0;
  std::uint64_t cpu_pairs_ = 0;
};

}  // namespace seqfuse::align
