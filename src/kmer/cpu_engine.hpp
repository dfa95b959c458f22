// The CPU k-mer counting engine: threads roll canonical (or forward) k-mers
// out of each batch, scatter them by prefix into partitions, then sort and
// run-length count every partition in parallel. Concatenated in prefix order
// the partitions form one sorted run, handed to the sink whenever the memory
// budget is full and at finish().
#pragma once

#include <cstddef>
#include <memory>

#include "kmer/engine.hpp"

namespace seqfuse::kmer {

// Bytes of engine memory one buffered k-mer occupies at the peak of a flush:
// the k-mer, its partitioned copy, and its share of the run handed out
// (words + a 32-bit count, at most one per k-mer).
[[nodiscard]] constexpr std::size_t cpu_engine_bytes_per_kmer(int k) noexcept {
  return 3 * sizeof(std::uint64_t) * static_cast<std::size_t>(words_for_k(k)) +
         sizeof(std::uint32_t);
}

// Prefix bits that pick a k-mer's partition: 4096 partitions, fewer for k < 6.
[[nodiscard]] constexpr int cpu_partition_bits(int k) noexcept {
  return 2 * k < 12 ? 2 * k : 12;
}

// Throws UsageError for k outside 1..63. params.memory_budget bounds the
// buffered k-mers (cpu_engine_bytes_per_kmer each; at least 64 k-mers are
// buffered whatever the budget, so tiny budgets only make more runs).
[[nodiscard]] std::unique_ptr<CountingEngine> make_cpu_engine(const EngineParams& params,
                                                              RunSink& sink);

}  // namespace seqfuse::kmer
