// The final merge: every run of a RunStore (in memory or spilled) streamed in
// ascending k-mer order, counts of equal k-mers summed, as blocks for the
// outputs. Memory: the runs already in memory plus one read buffer per
// spilled run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "kmer/record_block.hpp"
#include "kmer/run_store.hpp"

namespace seqfuse::kmer {

inline constexpr std::uint32_t kCountLimit = UINT32_MAX;

struct MergeTotals {
  std::uint64_t total_kmers = 0;  // sum of all run counts (k-mer occurrences)
  std::uint64_t distinct = 0;     // unique k-mers delivered
  std::uint64_t saturated = 0;    // k-mers whose count reached kCountLimit
};

// Merges the runs of `store` and hands the result to `consume` in blocks of
// at most 65,536 k-mers. A count that would pass kCountLimit stays at it
// (never wraps) and is counted in MergeTotals::saturated. Each spilled run is
// read through a buffer of `read_buffer_bytes` (at least one record).
MergeTotals merge_runs(const RunStore& store, std::size_t read_buffer_bytes,
                       const std::function<void(const RecordBlock&)>& consume);

struct MergeOptions {
  std::size_t read_buffer_bytes = std::size_t{1} << 20;  // per spilled run, all threads together
  // Above 1 (and for merges of `parallel_from` records or more), key ranges
  // are merged by this many threads and delivered in order: the same blocks.
  unsigned threads = 1;
  std::uint64_t parallel_from = std::uint64_t{1} << 22;
  // Merged records held ahead of the consumer, all threads together (a target:
  // ranges are sized from it, assuming evenly spread k-mers).
  std::size_t lookahead_bytes = std::size_t{256} << 20;
};
MergeTotals merge_runs(const RunStore& store, const MergeOptions& options,
                       const std::function<void(const RecordBlock&)>& consume);

}  // namespace seqfuse::kmer
