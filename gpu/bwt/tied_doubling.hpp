// The second stage of both suffix sorts: the suffixes that the first stage
// left tied (a bucket's window rounds in bucket_sort.cu, the initial sort by
// 21 characters in doubling_sort.cu), sorted by prefix doubling over the
// ranks of every suffix (the order and its proof: bucket_keys.hpp). Only
// the tied suffixes take part in a round, so the finished ones cost nothing.
#pragma once

#include <cstdint>
#include <memory>

#include "gpu/runtime.hpp"

namespace seqfuse::gpu::bwt {

// Tied entries (bucket_keys.hpp's tied_entry) in row order, on the host:
// a list may hold as many entries as there are suffixes, more than the
// device has room for beside the ranks. Pages are touched only as entries
// arrive.
struct TiedList {
  explicit TiedList(std::uint64_t max_entries) : entries(new std::uint64_t[max_entries]) {}
  std::unique_ptr<std::uint64_t[]> entries;
  std::uint64_t count = 0;
};

// Device bytes a chunk entry takes in refine_tied (80, as a bucket suffix
// in bucket_sort.cu, so a chunk fits where a bucket did).
inline constexpr std::uint64_t kBytesPerChunkEntry = 80;

// Refines rank (n + 1 entries on the device, rank[i] the row of the head of
// i's group, every tied group sharing its first `depth` characters, none
// past the end) until every suffix has its own row, in chunks of at most
// `capacity` entries. `tied` is consumed. Returns the rounds. Throws
// OutOfMemory when one group alone is larger than a chunk.
int refine_tied(std::uint64_t* rank, std::uint64_t n, TiedList& tied, std::uint64_t depth,
                std::uint64_t capacity, Stream& stream);

// The same for a list of `count` entries already on the device (`entries`,
// taken over): it stays there, one chunk, when free device memory holds
// that chunk; otherwise it moves to the host and goes in chunks.
int refine_tied(std::uint64_t* rank, std::uint64_t n, DeviceBuffer entries, std::uint64_t count,
                std::uint64_t depth, Stream& stream);

}  // namespace seqfuse::gpu::bwt
