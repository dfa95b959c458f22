// Per-read statistics of one read side (read 1 or read 2), before or after
// filtering: fastp 0.23.2's Stats, so that the JSON report's numbers are
// fastp's. One instance per thread, merged at the end (merge), as fastp does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/primitives/base_code.hpp"

namespace seqfuse::preprocess {

// fastp counts 5-mers over A, T, C, G coded 0, 1, 2, 3 (in that order), so
// index = sum of code(base i) << 2 * (4 - i); 1024 of them.
inline constexpr int kStatsKmerLength = 5;
inline constexpr std::size_t kStatsKmers = std::size_t{1} << (2 * kStatsKmerLength);

class ReadStats {
 public:
  // evaluated_cycles: fastp's guessed read length from its evaluation pass.
  // It only sizes the per-cycle buffers up front (plus fastp's margin of 1024
  // cycles); a longer read grows them, and the numbers never depend on it.
  explicit ReadStats(int evaluated_cycles = 0, bool is_read2 = false);

  // One read, quality in phred+33, qual as long as seq (a base past the end
  // of qual counts as quality 0). fastp takes the "before" statistics of the
  // read as read, before any trimming, and the "after" ones of the read as
  // written, only when it (in paired mode: both mates) passed and was not
  // dropped by --dedup.
  void add(std::string_view seq, std::string_view qual);
  // Adds another instance's counts (per-thread instances merged at the end).
  void merge(const ReadStats& other);
  // Adds counts kept elsewhere (the GPU engine's device statistics):
  // letters[cycle * 32 + (byte & 7) * 4 + k], k = bases, Q20 bases, Q30
  // bases, quality sum (two's complement), for `cycles` cycles; kmers as
  // kmer_counts(). Cycles past the last one holding a base are not stored.
  void add_counts(std::uint64_t reads, std::uint64_t length_sum, std::size_t cycles,
                  const std::uint64_t* letters, const std::uint64_t* kmers);

  [[nodiscard]] bool is_read2() const { return is_read2_; }
  [[nodiscard]] std::uint64_t reads() const { return reads_; }
  [[nodiscard]] std::uint64_t bases() const;
  [[nodiscard]] std::uint64_t q20_bases() const;
  [[nodiscard]] std::uint64_t q30_bases() const;
  // G + C bases (fastp's getGCNumber).
  [[nodiscard]] std::uint64_t gc_bases() const;
  // Bases of one letter; fastp files a byte under its low 3 bits, so 'a'
  // counts as 'A' and every other byte falls in one of the 8 classes.
  [[nodiscard]] std::uint64_t base_count(char base) const;
  // fastp's total_cycles: the longest read's length.
  [[nodiscard]] int cycles() const { return static_cast<int>(cycle_bases_.size()); }
  // fastp's read1_mean_length: total length / reads, an integer division.
  [[nodiscard]] std::uint64_t mean_length() const;

  // Per-cycle curves, cycles() entries each, as fastp's summarize computes
  // them: mean quality per cycle; a letter's mean quality (the mean curve's
  // value where that letter is absent); a letter's share of the bases; GC.
  [[nodiscard]] std::vector<double> mean_quality_curve() const;
  [[nodiscard]] std::vector<double> quality_curve(char base) const;
  [[nodiscard]] std::vector<double> content_curve(char base) const;
  [[nodiscard]] std::vector<double> gc_content_curve() const;

  // 5-mer counts, indexed as described at kStatsKmers.
  [[nodiscard]] const std::array<std::uint64_t, kStatsKmers>& kmer_counts() const { return kmers_; }
  // The 5-mer an index stands for, e.g. 0 -> "AAAAA", 1 -> "AAAAT".
  [[nodiscard]] static std::string kmer_name(std::size_t index);

 private:
  // Per-cycle counters of one of fastp's 8 letter classes (byte & 7).
  struct CycleCounts {
    std::uint64_t bases = 0, q20 = 0, q30 = 0, quality_sum = 0;
  };
  void grow(std::size_t cycles);

  bool is_read2_ = false;
  std::uint64_t reads_ = 0;
  std::uint64_t length_sum_ = 0;
  // Index: cycle * 8 + letter class. Cycles with no base are never stored,
  // so size() / 8 is the longest read.
  std::vector<CycleCounts> cycle_letters_;
  // Per cycle: all bases and their quality sum.
  std::vector<std::uint64_t> cycle_bases_, cycle_quality_;
  std::array<std::uint64_t, kStatsKmers> kmers_{};
};

// Reads, bases, Q20, Q30 and G/C bases of read 1's statistics, plus read 2's
// when given: fastp's summary adds the two sides.
struct ReadTotals {
  std::uint64_t reads = 0, bases = 0, q20 = 0, q30 = 0, gc = 0;
};
[[nodiscard]] ReadTotals totals_of(const ReadStats* read1, const ReadStats* read2);

// fastp's 2-bit base code (A0 T1 C2 G3, else -1), shared with the GPU
// engine's statistics kernel.
using seqfuse::fastp_base_code;

}  // namespace seqfuse::preprocess
