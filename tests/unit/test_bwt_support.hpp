// Helpers the bwt tests share: texts of 2-bit codes and whether bwa is here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace seqfuse::bwt::test {

using Text = std::vector<std::uint8_t>;  // codes A0 C1 G2 T3, one per byte

inline Text random_text(std::mt19937_64& rng, std::size_t length) {
  Text text(length);
  for (auto& c : text) c = static_cast<std::uint8_t>(rng() & 3);
  return text;
}

// `length` codes repeating a random unit of `period` codes.
inline Text periodic_text(std::mt19937_64& rng, std::size_t period, std::size_t length) {
  const Text unit = random_text(rng, period);
  Text text(length);
  for (std::size_t i = 0; i < length; ++i) text[i] = unit[i % period];
  return text;
}

// Element-wise equality of two arrays whatever their allocators (the bwt
// code's RowVector against a test's std::vector).
template <class A, class B>
bool same(const A& a, const B& b) {
  return std::ranges::equal(a, b);
}

// The comparisons with `bwa index` need bwa on PATH (scripts/setup.sh --peers).
inline bool bwa_available() {
  static const bool available = std::system("command -v bwa >/dev/null 2>&1") == 0;
  return available;
}

}  // namespace seqfuse::bwt::test
