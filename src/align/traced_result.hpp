// Decoding what the GPU traceback kernel writes per pair (gpu/align/trace_dp.hpp)
// into an AlignResult. Plain C++, so the CPU emulation of the kernel
// (tests/unit/test_align_traceback_emulated.cpp) decodes with the same code.
#pragma once

#include <cstdint>
#include <span>

#include "align/alignment.hpp"
#include "gpu/align/trace_dp.hpp"

namespace seqfuse::align {

// The AlignResult of one traced pair: its fields, and the CIGAR string built
// from its runs (runs[pair.run_offset, + run_count), forward order).
[[nodiscard]] AlignResult traced_result(const trace::TracedPair& pair,
                                        std::span<const std::uint32_t> runs);

}  // namespace seqfuse::align
