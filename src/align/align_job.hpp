// One alignment job: pairs, query-against-target search with top N per
// query, or all against all within one file, on the engine the job names
// (CPU or GPU, engine.hpp), with identical results either way.
#pragma once

#include <functional>

#include "align/engine.hpp"

namespace seqfuse::align {

// Calls `emit` with every kept hit, in batches: queries in input order;
// within a query, decreasing score with ties in target order (pairs: in pair
// order). Pairs come in batches of up to kPairsPerBatch, search hits one
// batch per chunk of queries. `targets` is ignored for all_vs_all.
AlignStats run_alignment_batched(const AlignJob& job, const ScoringScheme& scheme,
                                 const EncodedSequences& queries, const EncodedSequences& targets,
                                 const EmitHits& emit);

// The same, one hit at a time.
AlignStats run_alignment(const AlignJob& job, const ScoringScheme& scheme,
                         const EncodedSequences& queries, const EncodedSequences& targets,
                         const std::function<void(const AlignHit&)>& emit);

}  // namespace seqfuse::align
