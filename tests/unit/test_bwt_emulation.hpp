// The GPU suffix sorts' shared second stage, prefix doubling over the tied
// suffixes (gpu/bwt/tied_doubling.cu), run on the CPU for the emulation
// tests of both sorts: the same steps with the same shared functions of
// gpu/bwt/bucket_keys.hpp, std::stable_sort in place of the device radix
// sorts and loops in place of the scans and scatters.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gpu/bwt/bucket_keys.hpp"

namespace seqfuse::bwt::test {

// The permutation that stably sorts `keys` (the device's radix sort).
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  return order;
}

// One chunk of a doubling round at depth h (TiedRefiner::refine).
inline void refine_chunk(const std::uint64_t* entries, std::size_t count, std::uint64_t h,
                         std::vector<std::uint64_t>& rank, std::vector<std::uint64_t>& next) {
  namespace gb = seqfuse::gpu::bwt;
  std::vector<std::uint32_t> labels(count);
  std::vector<std::uint64_t> keys(count), label_rank;
  std::vector<std::uint32_t> label_start;
  for (std::size_t t = 0; t < count; ++t) {
    const std::uint64_t i = gb::entry_suffix(entries[t]);
    if (gb::entry_head(entries[t]) != 0) {
      label_rank.push_back(rank[i]);
      label_start.push_back(static_cast<std::uint32_t>(t));
    }
    if (label_rank.empty()) FAIL("a chunk does not start at a group head");
    labels[t] = static_cast<std::uint32_t>(label_rank.size() - 1);
    REQUIRE(i + h < rank.size());  // tied suffixes share h real characters
    keys[t] = rank[i + h];
  }
  const auto by_key = stable_order(keys);
  std::vector<std::uint32_t> key_labels(count);
  for (std::size_t t = 0; t < count; ++t) key_labels[t] = labels[by_key[t]];
  const auto by_label = stable_order(key_labels);
  std::vector<std::uint64_t> suffixes(count), sorted_keys(count);
  std::vector<std::uint32_t> sorted_labels(count), heads(count);
  for (std::size_t t = 0; t < count; ++t) {
    const std::uint32_t x = by_key[by_label[t]];
    suffixes[t] = gb::entry_suffix(entries[x]);
    sorted_keys[t] = rank[suffixes[t] + h];
    sorted_labels[t] = labels[x];
  }
  for (std::size_t t = 0; t < count; ++t)
    heads[t] = gb::deepening_head(sorted_labels.data(), sorted_keys.data(), t);
  std::uint32_t start = 0;
  for (std::size_t t = 0; t < count; ++t) {
    if (heads[t] != 0) start = static_cast<std::uint32_t>(t);
    const std::uint32_t label = sorted_labels[t];
    rank[suffixes[t]] = label_rank[label] + (start - label_start[label]);
    if (gb::still_tied(heads.data(), count, t) != 0)
      next.push_back(gb::tied_entry(suffixes[t], heads[t] != 0));
  }
}

// Doubling rounds from depth h over the tied list (row order, heads marked)
// in chunks of at most `capacity` entries, until no suffix is tied (refine_tied).
// Returns the rounds.
inline int double_tied(std::vector<std::uint64_t>& rank, std::vector<std::uint64_t> tied,
                       std::uint64_t h, std::uint64_t capacity) {
  int rounds = 0;
  for (; !tied.empty(); h *= 2, ++rounds) {
    REQUIRE(rounds < 64);
    std::vector<std::uint64_t> next;
    for (std::uint64_t first = 0; first < tied.size();) {
      const std::uint64_t end =
          seqfuse::gpu::bwt::chunk_end(tied.data(), tied.size(), first, capacity);
      REQUIRE(end > first);
      refine_chunk(tied.data() + first, end - first, h, rank, next);
      first = end;
    }
    tied.swap(next);
  }
  return rounds;
}

// The suffix array from distinct ranks (suffix i is row rank[i]).
inline std::vector<std::uint64_t> suffix_array_from_ranks(const std::vector<std::uint64_t>& rank) {
  std::vector<std::uint64_t> sa(rank.size(), ~std::uint64_t{0});
  for (std::uint64_t i = 0; i < rank.size(); ++i) {
    REQUIRE(rank[i] < rank.size());
    sa[rank[i]] = i;
  }
  return sa;
}

}  // namespace seqfuse::bwt::test
