// CIGAR strings of '=', 'X', 'I', 'D' runs: building them during traceback and
// re-scoring them independently of the dynamic programme that produced them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

// Collects alignment columns in reverse (traceback order) and run-length
// encodes them forwards.
class CigarBuilder {
 public:
  void push_reversed(char op) { reversed_ops_.push_back(op); }
  [[nodiscard]] std::size_t columns() const noexcept { return reversed_ops_.size(); }
  // The CIGAR string, and the number of '=' columns.
  [[nodiscard]] std::string finish(int& matches) const;

 private:
  std::vector<char> reversed_ops_;
};

struct Rescore {
  int score = 0;
  std::string problem;  // empty when the CIGAR is consistent with the sequences
};

// Scores an alignment from its CIGAR, begin positions and the sequences alone:
// substitutions from the matrix, each I or D run of length k costing open +
// (k - 1) * extend. Also checks that the CIGAR consumes exactly [begin, end] of
// both sequences (all of both for global mode), that '=' and 'X' agree with
// the letters, and that matches and alignment_length agree with the CIGAR.
[[nodiscard]] Rescore rescore_alignment(AlignMode mode, const ScoringScheme& scheme, Codes query,
                                        Codes target, const AlignResult& alignment);

}  // namespace seqfuse::align
