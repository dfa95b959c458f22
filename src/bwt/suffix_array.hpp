// The suffix array of a 2-bit text on the CPU (libdivsufsort), in the
// convention the rest of src/bwt uses: the sentinel '$' is implicit,
// smallest, and its suffix is row 0.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bwt/sorted_suffixes.hpp"

namespace seqfuse::bwt {

// The suffix array of text$: text.size() + 1 entries, sa[0] = text.size()
// (the '$' suffix), then libdivsufsort's order of the other suffixes (a
// suffix that is a prefix of another sorts first, as '$' smallest demands).
// `threads` is accepted for the engine interface; Debian's libdivsufsort64
// is built without OpenMP, so it sorts on one thread. Throws seqfuse::Error
// if libdivsufsort reports a failure.
[[nodiscard]] RowVector<std::uint64_t> suffix_array_cpu(std::span<const std::uint8_t> text,
                                                        unsigned threads = 1);

}  // namespace seqfuse::bwt
