// What a BwtEngine hands the index writers: the sorted suffixes of text$ as
// rows, the BWT one code a row and the suffix array sampled every
// `interval` rows (interval 1 for the raw format: the whole array). Neither
// engine keeps the full suffix array for bwa's files: the GPU builds the
// rows on the device, the CPU from libdivsufsort's array before dropping it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/default_init.hpp"

namespace seqfuse::bwt {

// Arrays of one entry a row (gigabytes for a human genome), written in full
// by their producer before anyone reads them: resize leaves them unwritten,
// so the producer's threads fault the pages in rather than one zero-fill.
template <class T>
using RowVector = std::vector<T, DefaultInitAllocator<T>>;

// The BWT code of the row whose suffix is the whole text (the '$' of the BWT).
inline constexpr std::uint8_t kSentinelCode = 4;

struct SortedSuffixes {
  // n + 1 codes: row r's is text[sa[r] - 1] (A0 C1 G2 T3), kSentinelCode
  // where sa[r] == 0.
  RowVector<std::uint8_t> bwt;
  std::uint32_t interval = 1;
  // sa[0], sa[interval], sa[2 interval], ...: n / interval + 1 entries.
  RowVector<std::uint64_t> samples;
  // The row whose suffix is the whole text (bwa's primary).
  std::uint64_t primary = 0;
};

// The rows of a full suffix array (suffix_array_cpu's convention), filled on
// `threads` threads; interval 1 keeps `sa` itself as the samples. Throws
// seqfuse::Error on an array of the wrong size or with entries out of range,
// a code above 3 or an interval that is not a power of two.
[[nodiscard]] SortedSuffixes sorted_from_suffix_array(std::span<const std::uint8_t> text,
                                                      RowVector<std::uint64_t> sa,
                                                      std::uint32_t interval, unsigned threads = 1);

// The row holding kSentinelCode. Throws seqfuse::Error when there is none.
[[nodiscard]] std::uint64_t sentinel_row(std::span<const std::uint8_t> bwt);

}  // namespace seqfuse::bwt
