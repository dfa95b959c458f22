// The plain scalar reference: textbook Gotoh with affine gaps, one cell at a
// time through the shared affine_cell update. Engines are tested against it;
// it is not meant to be fast.
#pragma once

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

// Score and end cell (see AlignResult); O(query) memory. Also the CPU engine's
// portable path when no SIMD kernel applies.
[[nodiscard]] AlignResult reference_score(AlignMode mode, const ScoringScheme& scheme, Codes query,
                                          Codes target);

// Score, end cell and traceback (begin cell, CIGAR, matches, length). Keeps
// one byte per cell: O(query x target) memory.
[[nodiscard]] AlignResult reference_align(AlignMode mode, const ScoringScheme& scheme, Codes query,
                                          Codes target);

}  // namespace seqfuse::align
