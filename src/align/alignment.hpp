// What an alignment engine returns. Coordinates follow Parasail: 0-based,
// inclusive end positions of the last aligned query and target residues.
#pragma once

#include <cstdint>
#include <string>

namespace seqfuse::align {

enum class AlignMode {
  global,  // Needleman-Wunsch: both sequences end to end, end gaps penalized
  local,   // Smith-Waterman: best-scoring pair of substrings, score >= 0
};

[[nodiscard]] constexpr const char* mode_name(AlignMode mode) noexcept {
  return mode == AlignMode::global ? "nw" : "sw";
}

struct AlignResult {
  int score = 0;
  // Global: query_end = query length - 1, target_end = target length - 1 (so
  // -1 for an empty sequence). Local: the cell Parasail reports: the first cell
  // holding the maximal score when the matrix is scanned target position by
  // target position (outer loop) and query position by position (inner loop),
  // that is the smallest target_end, then the smallest query_end; (0, 0) when
  // the score is 0; (-1, -1) when either sequence is empty.
  int query_end = -1;
  int target_end = -1;

  // Filled only by traceback. Begin positions are 0-based and inclusive; an
  // alignment with no columns (local score 0, or two empty sequences) has
  // begin -1 and an empty CIGAR.
  bool traced = false;
  int query_begin = -1;
  int target_begin = -1;
  // Runs of '=' (same letter), 'X' (different letters), 'I' (query residue
  // against a gap: an insertion in the query relative to the target, as in
  // SAM with the target as reference) and 'D' (target residue against a gap).
  // No clipping: the CIGAR covers exactly [begin, end] of both sequences.
  std::string cigar;
  int matches = 0;           // '=' columns
  int alignment_length = 0;  // all columns: =, X, I and D

  [[nodiscard]] double identity() const noexcept {
    return alignment_length == 0 ? 0.0 : static_cast<double>(matches) / alignment_length;
  }
};

}  // namespace seqfuse::align
