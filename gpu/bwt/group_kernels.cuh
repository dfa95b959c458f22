// Kernels over sorted groups that the bucketed sort's window rounds, its
// rank pass and the doubling of its tied suffixes all use: group starts from
// head flags, the flags of groups with two or more members, and a gather of
// labels into sorted order (one thread per sorted index); and the count of
// set flags from their exclusive sum.
#pragma once

#include <cstdint>

#include "gpu/bwt/bucket_keys.hpp"
#include "gpu/bwt/launch.cuh"
#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::bwt {

// starts[g] = the sorted index of group g's head.
static __global__ void group_starts_kernel(const std::uint32_t* heads,
                                           const std::uint32_t* heads_before, std::uint64_t count,
                                           std::uint32_t* starts) {
  const std::uint64_t t = thread_index();
  if (t < count && heads[t] != 0) starts[heads_before[t]] = static_cast<std::uint32_t>(t);
}

// tied[t] = 1 where sorted index t is in a group of two or more.
static __global__ void tied_kernel(const std::uint32_t* heads, std::uint64_t count,
                                   std::uint32_t* tied) {
  const std::uint64_t t = thread_index();
  if (t < count) tied[t] = still_tied(heads, count, t);
}

// sorted_labels[t] = labels[indices[t]].
static __global__ void gather_labels_kernel(const std::uint32_t* labels,
                                            const std::uint32_t* indices, std::uint64_t count,
                                            std::uint32_t* sorted_labels) {
  const std::uint64_t t = thread_index();
  if (t < count) sorted_labels[t] = labels[indices[t]];
}

// The tied list's entries (bucket_keys.hpp's tied_entry) of the suffixes
// in groups of two or more, compacted in sorted order through the tied
// flags' exclusive sum.
template <class Position>
static __global__ void tied_entries_kernel(const Position* sorted_suffixes,
                                           const std::uint32_t* heads, const std::uint32_t* tied,
                                           const std::uint32_t* tied_before, std::uint64_t count,
                                           std::uint64_t* entries) {
  const std::uint64_t t = thread_index();
  if (t < count && tied[t] != 0)
    entries[tied_before[t]] = tied_entry(sorted_suffixes[t], heads[t] != 0);
}

// How many of `count` flags are set: the exclusive sum's last entry plus
// the last flag, both copied back before the one wait.
inline std::uint64_t flags_set(const std::uint32_t* flags, const std::uint32_t* before,
                               std::uint64_t count, Stream& stream) {
  std::uint32_t last[2] = {0, 0};
  copy_to_host(&last[0], before + count - 1, sizeof last[0], stream);
  copy_to_host(&last[1], flags + count - 1, sizeof last[1], stream);
  stream.synchronize();
  return std::uint64_t{last[0]} + last[1];
}

}  // namespace seqfuse::gpu::bwt
