// All against all within one set on the CPU: every record gets its best hits
// among all the others (itself left out), exactly as if it had been searched
// against them, while each pair is scored once when the matrix is symmetric.
#pragma once

#include <span>

#include "align/cpu_engine.hpp"
#include "align/engine.hpp"

namespace seqfuse::align {

// `scorer` scores without traceback; `aligner` aligns the kept hits as the
// job asks (with traceback or not; it may be `scorer` itself). Hits are
// emitted record by record in input order, each record's in better_hit order
// (decreasing score, ties by target index).
AlignStats cpu_all_vs_all(const CpuEngine& scorer, const CpuEngine& aligner, const AlignJob& job,
                          std::span<const Codes> q, const EmitHits& emit);

}  // namespace seqfuse::align
