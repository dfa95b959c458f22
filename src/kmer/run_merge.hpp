// The final merge: every run of a RunStore (in memory or spilled) streamed in
// ascending k-mer order, counts of equal k-mers summed, in parts that the
// outputs prepare on the merge's threads. Memory: the runs already in memory,
// one read buffer per spilled run and the parts held prepared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kmer/record_block.hpp"
#include "kmer/run_store.hpp"

namespace seqfuse::kmer {

inline constexpr std::uint32_t kCountLimit = UINT32_MAX;

struct MergeTotals {
  std::uint64_t total_kmers = 0;  // sum of all run counts (k-mer occurrences)
  std::uint64_t distinct = 0;     // unique k-mers delivered
  std::uint64_t saturated = 0;    // k-mers whose count reached kCountLimit
};

struct MergeOptions {
  std::size_t read_buffer_bytes = std::size_t{1} << 20;  // per spilled run, all threads together
  // Above 1 (and for merges of `parallel_from` records or more), parts are
  // merged and prepared by this many threads; the same k-mers in the same order.
  unsigned threads = 1;
  std::uint64_t parallel_from = std::uint64_t{1} << 22;
  // Merged records held ahead of the consumer, all threads together (a target:
  // ranges are sized from it, assuming evenly spread k-mers).
  std::size_t lookahead_bytes = std::size_t{256} << 20;
};

// An output of the merge whose work per k-mer runs on the merge's threads.
// The merged k-mers come in parts, consecutive key ranges in key order:
// prepare() makes what the outputs need of one part on a merge thread
// (worker < MergeOptions::threads, one call at a time per worker; the part
// may be dropped once it returns), and deliver() takes the prepared parts in
// key order, on the thread that called merge_runs. Parts are sized from
// MergeOptions::lookahead_bytes, which also bounds the parts held prepared.
class PartConsumer {
 public:
  struct Prepared {
    virtual ~Prepared() = default;
  };
  virtual ~PartConsumer() = default;
  [[nodiscard]] virtual std::unique_ptr<Prepared> prepare(unsigned worker,
                                                          const RecordBlock& part) = 0;
  virtual void deliver(std::unique_ptr<Prepared> part) = 0;
};
// Merges the runs of `store`, summing the counts of equal k-mers, into
// `consumer`. A count that would pass kCountLimit stays at it (never wraps)
// and is counted in MergeTotals::saturated. Each spilled run is read through
// a buffer of read_buffer_bytes / threads (at least one record). Runs in
// memory whose key spans do not overlap are not merged but cut into parts.
MergeTotals merge_runs(const RunStore& store, const MergeOptions& options, PartConsumer& consumer);

}  // namespace seqfuse::kmer
