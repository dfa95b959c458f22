// The plain scalar reference: textbook Gotoh with affine gaps, one cell at a
// time through the shared affine_cell update. Engines are tested against it;
// it is not meant to be fast.
#pragma once

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

// Score and end cell (see AlignResult); O(query) memory. Also the CPU engine's
// portable path when no SIMD kernel applies.
// Throws seqfuse::Error when the cells of an m x n alignment could come
// near 32-bit overflow: scores up to 128 a residue, and for global
// alignments the longest gap (m + n residues); a local alignment's cells
// never fall below minus one gap opening.
void check_int_range(AlignMode mode, const ScoringScheme& scheme, std::size_t m, std::size_t n);

[[nodiscard]] AlignResult reference_score(AlignMode mode, const ScoringScheme& scheme, Codes query,
                                          Codes target);

// Score, end cell and traceback (begin cell, CIGAR, matches, length). Keeps
// one byte per cell: O(query x target) memory.
[[nodiscard]] AlignResult reference_align(AlignMode mode, const ScoringScheme& scheme, Codes query,
                                          Codes target);

}  // namespace seqfuse::align
