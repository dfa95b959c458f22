// Sorting packed k-mers on the CPU: a least-significant-digit radix sort over
// the bits that still differ inside one prefix partition.
//
// The CPU engine first scatters k-mers by their top bits (the partition), so
// inside a partition only the low `sort_bits` bits vary. LSD radix with 8-bit
// digits then takes ceil(sort_bits / 8) stable passes; a pass whose digit is
// the same for every key (common in low-complexity data and for small k) is
// skipped. Measured here (random 50-bit keys, partitions of 1,500 / 12,000 /
// 100,000 keys, the sizes the shovill reads give at k = 31 and up): 17-22 /
// 19-22 / 31-35 ns a key against std::sort's 41 / 57 / 63-67.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "gpu/primitives/kmer_code.hpp"

namespace seqfuse::kmer {

// The `bit`-th 8-bit digit group of a k-mer read as one 64*W-bit number.
template <int W>
inline unsigned kmer_digit(const Kmer<W>& x, int bit) {
  if constexpr (W == 1) {
    return static_cast<unsigned>((x.w[0] >> bit) & 0xffu);
  } else {
    return bit < 64 ? static_cast<unsigned>((x.w[1] >> bit) & 0xffu)
                    : static_cast<unsigned>((x.w[0] >> (bit - 64)) & 0xffu);
  }
}

// Sorts data[0, n) ascending, using scratch[0, n) as the second buffer; keys
// may differ only in their low `sort_bits` bits. Returns whichever of the two
// buffers holds the sorted keys.
template <int W>
Kmer<W>* radix_sort_kmers(Kmer<W>* data, Kmer<W>* scratch, std::size_t n, int sort_bits) {
  if (n < 2 || sort_bits <= 0) return data;
  if (n <= 48) {  // insertion sort: the histograms would cost more than the keys
    for (std::size_t i = 1; i < n; ++i) {
      const Kmer<W> key = data[i];
      std::size_t j = i;
      for (; j > 0 && key < data[j - 1]; --j) data[j] = data[j - 1];
      data[j] = key;
    }
    return data;
  }
  constexpr int kMaxDigits = 16;  // 128 bits
  const int digits = std::min((sort_bits + 7) / 8, 8 * W);
  std::array<std::array<std::size_t, 256>, kMaxDigits> counts{};
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < digits; ++d) ++counts[d][kmer_digit(data[i], 8 * d)];

  Kmer<W>* from = data;
  Kmer<W>* to = scratch;
  for (int d = 0; d < digits; ++d) {
    std::array<std::size_t, 256>& count = counts[d];
    if (std::find(count.begin(), count.end(), n) != count.end()) continue;  // one digit value
    std::size_t sum = 0;
    for (std::size_t& c : count) sum += std::exchange(c, sum);  // exclusive prefix sums
    for (std::size_t i = 0; i < n; ++i) to[count[kmer_digit(from[i], 8 * d)]++] = from[i];
    std::swap(from, to);
  }
  return from;
}

}  // namespace seqfuse::kmer
