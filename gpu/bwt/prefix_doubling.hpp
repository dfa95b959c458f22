// The arithmetic of the GPU suffix sort's first stage (doubling_sort.cu),
// shared with its CPU emulation (tests/unit/test_bwt_prefix_doubling_emulated.cpp).
//
// The text is n 2-bit codes (A0 C1 G2 T3, one per byte); the suffixes are
// positions 0..n, position n being the '$' suffix ('$' implicit, smallest).
//
// Why the order is the suffix array of text$ (as libdivsufsort gives it):
// - initial_key packs characters i..i+20 at 3 bits each, '$' and everything
//   past it 0, A1 C2 G3 T4. A suffix with L = n - i < 21 real characters has
//   a 0 at digit L, and no real character is 0, so two keys are equal only if
//   both suffixes have >= 21 real characters and the same 21 first ones: a key
//   holding '$' is unique to its suffix. Distinct keys differ first at some
//   digit k with digits < k equal: either two real characters (the order of
//   the codes) or '$' against a character, where the suffix that ends is
//   smaller, exactly as '$' smallest orders text$ (a suffix that is a prefix
//   of another sorts first). Position n has key 0, below every other key
//   (their first digit is >= 1), so it sorts first.
// - After a sort resolving prefixes of length h, rank[i] is the sorted index
//   of the head of i's group of equal h-prefixes: ranks order suffixes by
//   their h-prefix, equal ranks mean equal h-prefixes. The '$' suffix is
//   alone at index 0, so its rank is 0, and every other rank is >= 1.
// - The suffixes still tied (groups of two or more) share 21 real
//   characters, so i + 21 <= n for each of them; the '$' suffix is alone.
//   They go on to the prefix doubling over tied suffixes (tied_doubling.cu,
//   proof in bucket_keys.hpp) with h = 21, 42, 84, ...: all ranks are
//   distinct once 2h exceeds the longest repeat L (the longest common
//   prefix of two suffixes), after ceil(log2((L + 1) / 21)) rounds.
#pragma once

#include <cstdint>

#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::bwt {

inline constexpr int kInitialChars = 21;  // characters in the initial key
inline constexpr int kInitialKeyBits = 3 * kInitialChars;

// Characters i .. i + 20 of text$ at 3 bits each, the first most significant.
SF_HOST_DEVICE std::uint64_t initial_key(const std::uint8_t* text, std::uint64_t n,
                                         std::uint64_t i) {
  std::uint64_t key = 0;
  for (int k = 0; k < kInitialChars; ++k) {
    const std::uint64_t p = i + static_cast<std::uint64_t>(k);
    const std::uint64_t digit = p < n ? std::uint64_t{text[p]} + 1u : 0u;
    key = (key << 3) | digit;
  }
  return key;
}

// Bits that hold every rank 0..n (ranks are sorted indices, at most n).
SF_HOST_DEVICE int rank_bits(std::uint64_t n) {
  int bits = 0;
  while (bits < 64 && (n >> bits) != 0) ++bits;
  return bits;
}

// 1 where sorted index j starts a group of equal keys.
SF_HOST_DEVICE std::uint32_t group_head(const std::uint64_t* sorted_keys, std::uint64_t j) {
  return j == 0 || sorted_keys[j] != sorted_keys[j - 1] ? 1u : 0u;
}

// The group of sorted index j, from the exclusive sum of the head flags.
SF_HOST_DEVICE std::uint32_t group_of(const std::uint32_t* heads, const std::uint32_t* heads_before,
                                      std::uint64_t j) {
  return heads_before[j] + heads[j] - 1u;
}

}  // namespace seqfuse::gpu::bwt
