// fastp 0.23.2's duplication-rate estimate: every read (or pair) hashed into
// a large bit array; a read whose bit was already set counts as a duplicate.
// The bits are set with atomic fetch-or, so any number of threads may feed one
// instance, in any order, and the rate is the same: the number of duplicates
// is the number of reads minus the number of distinct bits they set.
//
// Memory: fastp allocates 2 arrays of 512 MiB (1 GiB) at its default accuracy
// level 1, but its answer depends on the last array only (its loop keeps the
// last array's verdict), so this class allocates just that one: 512 MiB at
// level 1, 1 GiB at level 3 (fastp's level with --dedup), with identical
// results. Pages are zero-filled lazily (calloc), so only touched pages
// cost. The array is set a 64-bit word at a time (a
// bit-test-and-set), so a page's first touch is a write: a byte-wide
// fetch-or compiled as load and compare-exchange first mapped the shared
// zero page, then copied it on the write, with a TLB shootdown across the
// workers for every page (17% of a 2-core run's samples; issue 17).
//
// Where the bits cost: one random word per read, so with many reads every
// 4 KiB page is faulted in one at a time and nearly every set misses the
// TLB. On the 2-core dev box (a virtual machine, 4 M random sets, one
// thread): 1.95 s with 4 KiB pages; 0.16 s on 2 MiB pages with each word
// prefetched a few reads ahead (scripts/probe-duplication-bits.cpp). Hence
// huge pages for a run with many reads, and check_sums.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace seqfuse::preprocess {

class Duplication {
 public:
  // accuracy_level: fastp's --dup_calc_accuracy, 1 to 6; fastp uses 1 by
  // default and 3 with --dedup. many_reads: back the array with 2 MiB pages
  // (transparent huge pages, where the kernel grants them). Each touched
  // huge page is zeroed whole, so a few reads map the whole array: all 256
  // took 0.025 s on the dev box, against about 10 us per 4 KiB page faulted
  // in one at a time, so it pays from about 2,500 reads. Throws seqfuse::Error
  // when out of range or when the array cannot be allocated.
  explicit Duplication(int accuracy_level = 1, bool many_reads = false);
  ~Duplication();
  Duplication(const Duplication&) = delete;
  Duplication& operator=(const Duplication&) = delete;

  // Reads (pairs) checked and duplicates among them, kept by a caller that
  // checks many (a worker, chunk by chunk) and added once with add(): the
  // shared counters are one cache line that every worker would otherwise
  // write for every read.
  struct Tally {
    std::uint64_t reads = 0, duplicates = 0;
  };

  // Single-end: one read. Returns whether it counted as a duplicate.
  // Thread-safe.
  bool check_read(std::string_view seq);
  bool check_read(std::string_view seq, Tally& tally);
  // Paired-end: the pair hashed as read 1 followed by read 2. Thread-safe.
  bool check_pair(std::string_view seq1, std::string_view seq2);
  bool check_pair(std::string_view seq1, std::string_view seq2, Tally& tally);
  // Adds a caller's tally to the counts. Thread-safe.
  void add(const Tally& tally);

  // What a read (pair: read 1 then read 2) hashes to.
  [[nodiscard]] std::uint64_t read_sum(std::string_view seq) const { return fastp_sum(seq, 0); }
  [[nodiscard]] std::uint64_t pair_sum(std::string_view seq1, std::string_view seq2) const {
    return fastp_sum(seq1, 0) + fastp_sum(seq2, seq1.size());
  }
  // Checks many reads' sums at once (a worker's chunk, when no read needs
  // its own verdict): the same counts as check_read on each, but each sum's
  // word is prefetched a few reads ahead. A single check waits for its
  // random miss into the array before the next can start (the locked
  // bit-test-and-set orders them); prefetched, the misses overlap.
  // Thread-safe.
  void check_sums(std::span<const std::uint64_t> sums, Tally& tally);

  [[nodiscard]] std::uint64_t reads() const { return reads_.load(); }
  [[nodiscard]] std::uint64_t duplicates() const { return duplicates_.load(); }
  // duplicates / reads; 0 with no reads (fastp's getDupRate).
  [[nodiscard]] double rate() const;

  // Bytes the bit array takes at an accuracy level (512 MiB at level 1).
  [[nodiscard]] static std::size_t memory_bytes(int accuracy_level);

  // What an estimate elsewhere (the GPU engine's, on its device) needs to
  // hash reads and set bits as this one does; it adds its counts with add().
  struct Tables {
    std::span<const std::uint64_t> primes;   // by position modulo primes.size() (4096)
    std::span<const std::uint64_t> weights;  // by byte
    std::uint64_t bit_mask = 0;              // bits - 1
  };
  [[nodiscard]] Tables tables() const { return {prime_at_, weight_, bit_mask_}; }

  // fastp's sum for `seq` at positions counted from `position_offset` (read
  // 2 of a pair continues from read 1's length), modulo 2^64; what a read
  // (pair) hashes to is the sum of its reads' sums. Public for tests.
  [[nodiscard]] std::uint64_t fastp_sum(std::string_view seq, std::size_t position_offset) const;

 private:
  struct FreeDeleter {
    void operator()(std::uint64_t* p) const;
  };
  // Sets the sum's bit; whether it was set already.
  bool apply(std::uint64_t sum);
  // The array word holding a sum's bit (the array holds a power of two).
  [[nodiscard]] std::uint64_t* word_of(std::uint64_t sum) const {
    return &bits_[static_cast<std::size_t>((sum & bit_mask_) >> 6)];
  }

  std::size_t hash_count_ = 2;     // fastp's mBufNum
  std::uint64_t array_bytes_ = 0;  // fastp's mBufLenInBytes
  std::uint64_t bit_mask_ = 0;     // array_bytes_ x 8 - 1: fastp's sum % bits
  // The prime that position p draws, by p modulo 4096 (fastp's index
  // (p x hashes + last) & mask reads p's low 12 bits only, mask < 4096), and
  // each letter's weight: table lookups instead of index arithmetic and a
  // switch per base. Run 31 (H100, 4 M pairs) saw no change in the GPU run:
  // the estimate's 3.5-4.3 worker thread-seconds lie elsewhere, most likely
  // in setting the bits (a random atomic write into 512 MiB per pair).
  static constexpr std::size_t kPrimePeriod = 4096;
  std::vector<std::uint64_t> prime_at_;
  std::uint64_t weight_[256] = {};
  std::unique_ptr<std::uint64_t[], FreeDeleter> bits_;  // array_bytes_ / 8 words
  // A cache line of their own, away from the fields every check reads.
  alignas(64) std::atomic<std::uint64_t> reads_{0};
  std::atomic<std::uint64_t> duplicates_{0};
};

}  // namespace seqfuse::preprocess
