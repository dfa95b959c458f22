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

}  // namespace seqfuse::kmer
