// One alignment run as the CLI asks for it: pairs, query-against-target
// search with top N per query, or all against all within one file; on the
// CPU engine or the GPU, with identical results either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

enum class PairLayout {
  pairs,       // query k with target k
  search,      // every query with every target
  all_vs_all,  // within the queries: i with j for i < j
};

struct AlignJob {
  AlignMode mode = AlignMode::local;
  PairLayout layout = PairLayout::search;
  std::size_t top = 10;  // hits kept per query (search, all_vs_all); 0 keeps all
  bool traceback = false;
  unsigned threads = 1;
  bool gpu = false;  // score on the GPU (caller checked gpu_can_score)
  // GPU search: residues of targets resident on the device at once; a larger
  // set is scored in parts, one after another. 0: sized from free device
  // memory (or SEQFUSE_ALIGN_PART_RESIDUES, for tests and timing).
  std::uint64_t gpu_part_residues = 0;
  // Called now and then with the number of queries finished (for a progress line).
  std::function<void(std::size_t queries_done)> progress;
};

struct AlignHit {
  std::uint32_t query = 0;
  std::uint32_t target = 0;  // index into targets (into queries for all_vs_all)
  AlignResult result;
};

struct AlignStats {
  std::uint64_t pairs = 0;
  std::uint64_t cells = 0;    // sum of query length x target length over every pair scored
  double device_seconds = 0;  // GPU only: time inside the device engine
};

// Takes kept hits many at a time, so the caller can format them on several
// threads; the hits live only until the call returns.
using EmitHits = std::function<void(std::span<const AlignHit> hits)>;
// Pairs' results are moved into hits a slice at a time (about 36 MB of hits
// at most), while a slice still holds enough chunks to keep 16 threads busy.
inline constexpr std::size_t kPairsPerBatch = std::size_t{1} << 19;

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
