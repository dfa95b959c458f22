// fastp's duplication estimate on the device, for the GPU fastq-trim engine:
// the host estimate's arithmetic (src/preprocess/report/duplication.hpp: a
// read or pair hashes to a sum of prime x (weight + position) terms, and a
// read whose bit in a large array was already set counts as a duplicate)
// with the array in device memory. The host estimate cost the workers about
// 2.3 of their 9 thread-seconds on 4 M pairs (run 32: the sums, then a
// random atomic write into 512 MiB a pair); on the device both are a pass
// over the chunk already there. Plain C++: src/ includes it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/preprocess/trim_chunk.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::preprocess {

inline constexpr std::size_t kDuplicationPrimes = 4096;  // the period of positions' primes

// Device pointers, and the mask the host estimate uses.
struct DuplicationTable {
  const unsigned long long* primes = nullptr;   // kDuplicationPrimes: by position modulo 4096
  const unsigned long long* weights = nullptr;  // 256: each byte's weight
  unsigned long long* bits = nullptr;           // the bit array, (bit_mask + 1) / 64 words
  unsigned long long bit_mask = 0;              // bits - 1 (a power of two)
  unsigned long long* counts = nullptr;         // [0] reads (pairs), [1] duplicates; accumulated
};

// Queues the estimate of a chunk's reads (pairs: record i of side 0 then
// of side 1, whose positions go on from read 1's length), as the chunk
// stands in `buffers` (before trim_chunk edits any base).
[[nodiscard]] Status estimate_duplicates(const TrimChunkBuffers& buffers,
                                         const DuplicationTable& table, Stream& stream);

// Queues the bits of sums the host computed (Duplication::pair_sum and
// read_sum): reads of a chunk the device did not take.
[[nodiscard]] Status estimate_duplicate_sums(const unsigned long long* sums, std::size_t count,
                                             const DuplicationTable& table, Stream& stream);

}  // namespace seqfuse::gpu::preprocess
