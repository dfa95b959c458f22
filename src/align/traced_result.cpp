#include "align/traced_result.hpp"

#include <string>

#include "core/error.hpp"

namespace seqfuse::align {

AlignResult traced_result(const trace::TracedPair& pair, std::span<const std::uint32_t> runs) {
  AlignResult r;
  r.traced = true;
  r.score = pair.score;
  r.query_end = pair.query_end;
  r.target_end = pair.target_end;
  r.query_begin = pair.query_begin;
  r.target_begin = pair.target_begin;
  r.matches = pair.matches;
  r.alignment_length = pair.columns;
  if (pair.run_offset + pair.run_count > runs.size())
    throw Error("internal: GPU traceback runs out of range");
  // A run split at kMaxRunLength continues in the next one: merge them, as
  // CigarBuilder would.
  std::uint64_t length = 0;
  std::uint32_t op = 4;
  const auto flush = [&] {
    if (length == 0) return;
    r.cigar += std::to_string(length);
    r.cigar += trace::op_letter(op);
  };
  for (std::uint32_t k = 0; k < pair.run_count; ++k) {
    const std::uint32_t run = runs[pair.run_offset + k];
    if (trace::run_op(run) != op) {
      flush();
      op = trace::run_op(run);
      length = 0;
    }
    length += trace::run_length(run);
  }
  flush();
  return r;
}

}  // namespace seqfuse::align
