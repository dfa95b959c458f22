// The pseudo-random bases bwa puts in place of ambiguous letters. bwa 0.7.17
// calls glibc's srand48(11) and then lrand48() & 3 once per ambiguous letter;
// for the .pac (and so the BWT) to match bwa's byte for byte we must draw the
// same numbers on every platform, so the drand48 family's generator is written
// out here rather than taken from a C library that may not have it or may
// differ (POSIX fixes the recurrence, not every libc follows it).
#pragma once

#include <cstdint>

namespace seqfuse::bwt {

// POSIX drand48 family: X' = (a * X + c) mod 2^48 with a = 0x5DEECE66D and
// c = 0xB; srand48(s) sets the high 32 bits of X to s and the low 16 to
// 0x330E; lrand48() returns the top 31 bits of the new X.
class BwaRandom {
 public:
  // bwa writes this seed in .ann and seeds with it before packing.
  static constexpr std::uint32_t kBwaSeed = 11;

  explicit constexpr BwaRandom(std::uint32_t seed = kBwaSeed) noexcept
      : state_((std::uint64_t{seed} << 16) | 0x330E) {}

  // The next value of lrand48(): 0 .. 2^31 - 1.
  constexpr std::uint32_t next() noexcept {
    state_ = (kMultiplier * state_ + kIncrement) & kMask;
    return static_cast<std::uint32_t>(state_ >> 17);
  }

  // The 2-bit code bwa stores for an ambiguous letter: lrand48() & 3.
  constexpr std::uint8_t next_base() noexcept { return static_cast<std::uint8_t>(next() & 3); }

 private:
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr std::uint64_t kIncrement = 0xB;
  static constexpr std::uint64_t kMask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t state_;
};

}  // namespace seqfuse::bwt
