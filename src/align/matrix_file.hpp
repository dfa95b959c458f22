// Reader for substitution matrices in NCBI format (BLOSUM62, PAM30, NUC.4.4,
// EMBOSS's EBLOSUM62 ...): '#' comment lines, a header row of letters, then one
// row per letter: the letter and one integer score per header column.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace seqfuse::align {

struct MatrixTable {
  std::string letters;      // header order, uppercase
  std::vector<int> scores;  // row-major, letters.size()^2; rows reordered to header order
};

// Throws seqfuse::Error "<what>, <source>:<line>" for a missing header, a
// header entry that is not one letter, a repeated letter, a row for a letter
// not in the header (the matrix is not square), a short or long row, a score
// that is not an integer or is outside [-127, 127], a missing row.
[[nodiscard]] MatrixTable parse_ncbi_matrix(std::string_view text, std::string_view source);

// Throws seqfuse::Error "cannot read matrix file '<path>'" when unreadable.
[[nodiscard]] MatrixTable read_ncbi_matrix_file(const std::string& path);

}  // namespace seqfuse::align
