// bwa 0.7.17's PREFIX.bwt and PREFIX.sa, built in memory from an engine's
// sorted suffixes and written byte for byte as `bwa index` writes them.
//
// What bwa stores (bwtindex.c, bwt.c, is.c):
//  - primary: the row whose suffix is the whole text (SA value 0), i.e. the
//    row whose BWT character is '$'. The '$' itself is left out of the
//    stored BWT, which therefore has exactly seq_len characters.
//  - L2[1..4]: the number of characters <= A, <= C, <= G, <= T in the text
//    (L2[0] = 0 is implicit), so L2[4] = seq_len.
//  - The BWT packed 16 characters per uint32, the first character in the two
//    most significant bits (bwt_B00), with "occurrence blocks" interleaved:
//    before every 128 characters (OCC_INTERVAL) four uint64 counts of A, C,
//    G, T in the BWT before that point, and one more block after the last
//    word. A block is memcpy'd, so on disk each count is 8 little-endian
//    bytes in the order A, C, G, T.
//  - .bwt: primary, L2[1..4] (uint64 each), then the words.
//  - .sa: primary, L2[1..4], the sampling interval, seq_len (uint64 each),
//    then the SA values of rows intv, 2*intv, ... (row 0, the '$' row, is not
//    stored: bwa sets it to -1 in memory and writes from entry 1).
// Text codes are A0 C1 G2 T3, one per byte; for bwa the text is the forward
// strand followed by its reverse complement.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <vector>

#include "bwt/sorted_suffixes.hpp"

namespace seqfuse::bwt {

// bwa's OCC_INTERVAL and the words one interval takes in the final .bwt.
inline constexpr std::uint64_t kOccInterval = 128;
inline constexpr std::uint64_t kWordsPerOccBlock = 8;  // four uint64 counts
inline constexpr std::uint64_t kWordsPerInterval = kOccInterval / 16 + kWordsPerOccBlock;

struct BwaIndex {
  std::uint64_t primary = 0;
  std::array<std::uint64_t, 4> counts_before{};  // bwa's L2[1..4]
  std::uint64_t seq_len = 0;
  // The .bwt's body: packed BWT with the occurrence blocks interleaved.
  RowVector<std::uint32_t> bwt_words;
  std::uint32_t sa_interval = 32;
  // The suffix array at rows 0, interval, 2 interval, ...; bwa stores all
  // but row 0's (its sa[1 .. n_sa - 1]).
  RowVector<std::uint64_t> samples;
};

// Words in the final .bwt body for a BWT of seq_len characters (bwa's
// bwt_size after bwt_bwtupdate_core).
[[nodiscard]] std::uint64_t bwa_bwt_words(std::uint64_t seq_len);

// Builds the index from an engine's sorted suffixes (the occurrence blocks
// filled on `threads` threads; the samples move into the index); the
// samples' interval is bwa's, a power of two. Throws seqfuse::Error on rows
// without exactly one '$' or samples that do not fit.
[[nodiscard]] BwaIndex build_bwa_index(SortedSuffixes&& sorted, unsigned threads = 1);

// The same from a text and its full suffix array (suffix_array_cpu's
// convention: text.size() + 1 entries, sa[0] = text.size()), for tests.
[[nodiscard]] BwaIndex build_bwa_index(std::span<const std::uint8_t> text,
                                       std::span<const std::uint64_t> sa, std::uint32_t sa_interval,
                                       unsigned threads = 1);

// Byte-identical to bwa's PREFIX.bwt / PREFIX.sa. Throw seqfuse::Error when
// the stream fails.
void write_bwa_bwt(const BwaIndex& index, std::ostream& out);
void write_bwa_sa(const BwaIndex& index, std::ostream& out);

// The text back from the index's BWT and occurrence blocks (LF mapping from
// the '$' row), for tests. Throws seqfuse::Error if the index is inconsistent.
[[nodiscard]] std::vector<std::uint8_t> inverse_bwt(const BwaIndex& index);

}  // namespace seqfuse::bwt
