// StripedScorer: score-only alignment of one query against many targets with
// the striped kernels of one ISA. Starts every pair in 16-bit lanes and moves a
// pair to 32-bit lanes when 16 bits could be wrong: local pairs whose score
// reached INT16_MAX (checked after the fact), global pairs whose score range
// does not fit (checked beforehand). One per thread; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "align/alignment.hpp"
#include "align/scoring.hpp"
#include "align/striped_kernels.hpp"

namespace seqfuse::align {

// Zero-initialized storage aligned for any vector width, grown on demand.
class AlignedBuffer {
 public:
  [[nodiscard]] void* reserve(std::size_t bytes);
  [[nodiscard]] void* data() const noexcept { return storage_.get(); }

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept;
  };
  std::unique_ptr<std::byte[], Free> storage_;
  std::size_t capacity_ = 0;
};

struct ScorerCounters {
  std::uint64_t pairs = 0;
  std::uint64_t cells = 0;          // query length x target length, summed
  std::uint64_t widened_to_32 = 0;  // local pairs rerun after 16-bit saturation
  std::uint64_t started_at_32 = 0;  // global pairs whose range needs 32 bits
};

class StripedScorer {
 public:
  StripedScorer(const ScoringScheme& scheme, AlignMode mode, const striped::KernelSet& kernels);

  // Sets the query; its profiles (8-, 16- and 32-bit lanes) are built on first need.
  void set_query(Codes query);
  // Score and end cell of the current query against `target` (see AlignResult).
  [[nodiscard]] AlignResult score(Codes target);

  [[nodiscard]] const ScorerCounters& counters() const noexcept { return counters_; }

 private:
  struct LaneProfile {
    AlignedBuffer buffer;
    int segments = 0;
    bool built = false;
  };
  void build_profile(LaneProfile& profile, int lane_bytes);
  striped::Outcome run(striped::Kernel kernel, LaneProfile& profile, int lane_bytes, Codes target);
  [[nodiscard]] bool global_fits_16_bits(std::size_t target_length) const;
  [[nodiscard]] bool local_fits_8_bits() const;

  const ScoringScheme* scheme_;
  AlignMode mode_;
  const striped::KernelSet* kernels_;
  Codes query_;
  LaneProfile profile8_;
  LaneProfile profile16_;
  LaneProfile profile32_;
  AlignedBuffer columns_[3];
  AlignedBuffer e_column_;
  ScorerCounters counters_;
};

}  // namespace seqfuse::align
