// The arithmetic of the bucketed GPU suffix sort (bucket_sort.cu), shared
// with its CPU emulation (tests/unit/test_bwt_buckets_emulated.cpp).
//
// Suffixes (positions 0..n of text$, n being the '$' suffix) are split into
// buckets by their first kBinChars characters, read as the top digits of
// prefix_doubling.hpp's initial_key: a bin is a key prefix, bins are ordered
// as their suffixes are, so consecutive bins make a bucket whose suffixes
// fill a contiguous range of suffix-array rows.
//
// Inside a bucket the order comes first from deepening windows: round r
// compares characters 21r .. 21r + 20 (initial_key at i + 21r). Why that
// order is the suffix array's:
// - round 0 sorts by the first 21 characters; as prefix_doubling.hpp shows,
//   a window holding '$' is unique to its suffix among those that share the
//   characters before it, and otherwise windows order as the characters do;
// - a group (equal windows so far) that survives round r - 1 shares its
//   first 21r characters, none of them past the end, so i + 21r <= n for
//   every member; sorting the group stably by (group, window at 21r) orders
//   it by its first 21(r + 1) characters, and groups keep their row ranges;
// - a group with one member is done.
// A window round adds 21 characters, so a bucket stops after kBucketRounds
// of them; its rows then carry ranks (the row of their group's head, as in
// prefix_doubling.hpp) in one array over all suffixes, and the suffixes
// still tied (same_prefix of D = 21(kBucketRounds + 1) characters) go on a
// list kept in row order, a group's members together, its head marked.
//
// The tied suffixes of every bucket are then sorted by prefix doubling with
// h = D, 2D, 4D...: a round sorts each group by (group, rank[i + h]) and
// gives the members their refined ranks (the group's first row plus the
// offset of their subgroup's head inside the group). Once every bucket has
// written its ranks, rank[i + h] exists for any i, in whatever bucket it
// lies. The list is processed in chunks of whole groups, and a chunk may read
// ranks that an earlier chunk of the same round has refined; as Larsson and
// Sadakane show, that is harmless: a refined rank still lies inside its old
// group's row range, so it orders against every other group as before, and
// two suffixes of one group are always in one chunk. Rounds end when no
// group has two members: about log2(L / D) of them for a longest repeat of
// L characters, where windows alone would need L / 21.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/bwt/prefix_doubling.hpp"
#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::bwt {

inline constexpr int kBinChars = 8;
inline constexpr int kBinBits = 3 * kBinChars;
inline constexpr std::uint64_t kBins = std::uint64_t{1} << kBinBits;
// Window rounds a bucket runs before its tied suffixes go to the doubling.
inline constexpr int kBucketRounds = 3;
inline constexpr std::uint64_t kBucketDepth = std::uint64_t{kInitialChars} * (kBucketRounds + 1);

SF_HOST_DEVICE std::uint32_t bucket_bin(const std::uint8_t* text, std::uint64_t n,
                                        std::uint64_t i) {
  return static_cast<std::uint32_t>(initial_key(text, n, i) >> (kInitialKeyBits - kBinBits));
}

// Characters depth .. depth + 20 of suffix i (0 past the end of text$).
SF_HOST_DEVICE std::uint64_t window_key(const std::uint8_t* text, std::uint64_t n, std::uint64_t i,
                                        std::uint64_t depth) {
  return i + depth <= n ? initial_key(text, n, i + depth) : 0u;
}

// 1 where sorted index t starts a new group: its group label or its window
// differs from index t - 1's.
SF_HOST_DEVICE std::uint32_t deepening_head(const std::uint32_t* labels, const std::uint64_t* keys,
                                            std::uint64_t t) {
  return t == 0 || labels[t] != labels[t - 1] || keys[t] != keys[t - 1] ? 1u : 0u;
}

// 1 where sorted index t belongs to a group of two or more (heads[t] and
// heads[t + 1] not both set; count entries).
SF_HOST_DEVICE std::uint32_t still_tied(const std::uint32_t* heads, std::uint64_t count,
                                        std::uint64_t t) {
  const bool next_is_head = t + 1 == count || heads[t + 1] != 0;
  return heads[t] != 0 && next_is_head ? 0u : 1u;
}

// Whether suffixes a and b share their first `depth` characters, none of
// them past the end (a prefix that reaches '$' is its suffix's alone).
SF_HOST_DEVICE bool same_prefix(const std::uint8_t* text, std::uint64_t n, std::uint64_t a,
                                std::uint64_t b, std::uint64_t depth) {
  if (a + depth > n || b + depth > n) return false;
  for (std::uint64_t k = 0; k < depth; ++k)
    if (text[a + k] != text[b + k]) return false;
  return true;
}

// An entry of the tied list: a suffix, its top bit set where it heads its
// group (positions stay below 2^63).
inline constexpr std::uint64_t kGroupHeadBit = std::uint64_t{1} << 63;
SF_HOST_DEVICE std::uint64_t tied_entry(std::uint64_t suffix, bool head) {
  return suffix | (head ? kGroupHeadBit : 0u);
}
SF_HOST_DEVICE std::uint64_t entry_suffix(std::uint64_t entry) {
  return entry & ~kGroupHeadBit;
}
SF_HOST_DEVICE std::uint32_t entry_head(std::uint64_t entry) {
  return (entry & kGroupHeadBit) != 0 ? 1u : 0u;
}

// The end of the chunk that starts at `first` (a group head) in a tied list
// of `count` entries: as many whole groups as fit in `capacity` entries.
// Returns `first` when the group at `first` alone is larger.
inline std::uint64_t chunk_end(const std::uint64_t* entries, std::uint64_t count,
                               std::uint64_t first, std::uint64_t capacity) {
  if (count - first <= capacity) return count;
  std::uint64_t end = first + capacity;  // the first entry left out
  while (end > first && entry_head(entries[end]) == 0) --end;
  return end;
}

// A bucket: bins [first_bin, end_bin) holding `suffixes` suffixes, the
// first of them at suffix-array row `first_row`.
struct Bucket {
  std::uint32_t first_bin = 0;
  std::uint32_t end_bin = 0;
  std::uint64_t first_row = 0;
  std::uint64_t suffixes = 0;
};

// Consecutive bins grouped greedily into buckets of at most `capacity`
// suffixes (empty bins join their neighbours). Returns an empty list when a
// single bin holds more than `capacity` suffixes.
inline std::vector<Bucket> plan_buckets(const std::vector<std::uint64_t>& bin_counts,
                                        std::uint64_t capacity) {
  std::vector<Bucket> buckets;
  Bucket current;
  std::uint64_t row = 0;
  for (std::uint32_t bin = 0; bin < bin_counts.size(); ++bin) {
    const std::uint64_t count = bin_counts[bin];
    if (count > capacity) return {};
    if (current.suffixes + count > capacity) {
      current.end_bin = bin;
      buckets.push_back(current);
      current = Bucket{bin, bin, row, 0};
    }
    current.suffixes += count;
    row += count;
  }
  current.end_bin = static_cast<std::uint32_t>(bin_counts.size());
  if (current.suffixes > 0) buckets.push_back(current);
  return buckets;
}

}  // namespace seqfuse::gpu::bwt
