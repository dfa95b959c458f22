// Device ops of k-mer counting: extract the canonical k-mers of a batch of
// records, then sort them and count equal neighbours. Plain C++ so src/kmer
// can call them; the kernels are in count_kmers.cu.
//
// K-mers live in columns: `high` holds w[0] of each k-mer (the whole k-mer
// when k <= 32), `low` holds w[1] (k > 32 only; nullptr otherwise).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu {

struct KmerColumns {
  std::uint64_t* high = nullptr;
  std::uint64_t* low = nullptr;
};

struct KmerExtraction {
  int k = 0;
  bool canonical = true;
  const char* bases = nullptr;             // the batch's ASCII bases, concatenated
  const std::uint64_t* offsets = nullptr;  // records + 1 record starts in `bases`
  std::size_t records = 0;
  // Only k-mers whose last base lies in [end_from, end_to) are taken, so a
  // batch larger than the room left can be extracted in slices.
  std::size_t end_from = 0;
  std::size_t end_to = 0;
  // Only k-mers x (the chosen strand, w[0] compared first) with key_from <= x
  // and, unless key_to_end, x < key_to are taken: one worker's share of the
  // key space when several devices split a count (src/kmer/key_ranges.hpp).
  // The defaults take every k-mer, through the kernel without the test.
  std::uint64_t key_from[2] = {0, 0};
  std::uint64_t key_to[2] = {0, 0};
  bool key_to_end = true;
};

// Appends the k-mers of `job` to `out` from index *count on (a device
// counter, advanced by the number found). `room` is how many k-mers `out`
// holds: k-mers past it are counted but not written, so a counter above
// `room` afterwards means some were lost. Callers keep *count plus what the
// slice can add within `room`: at most one k-mer per end position, or half
// the bytes of well-formed FASTQ text (a quality byte per base).
[[nodiscard]] Status extract_kmers(const KmerExtraction& job, KmerColumns out, std::size_t room,
                                   unsigned long long* count, Stream& stream);

// Device work space of sort_and_count for up to `capacity` k-mers. After a
// call, run r's k-mer is at unique_words[r * W .. r * W + W) (w[0] first) and
// its count at counts[r].
struct KmerSortSpace {
  KmerSortSpace(std::size_t capacity, int k);
  // Bytes this space takes per k-mer of capacity.
  [[nodiscard]] static std::size_t bytes_per_kmer(int k);

  std::size_t capacity;
  int k;
  DeviceBuffer alternate_high, alternate_low;  // the sort's ping-pong halves
  DeviceBuffer head_flags, run_ranks;          // u32: run starts, then their ranks
  DeviceBuffer unique_words;                   // u64 x W per distinct k-mer
  DeviceBuffer counts;                         // u32 per distinct k-mer
  DeviceBuffer scratch;                        // CUB / rocPRIM temporary storage
};

// Sorts n k-mers of `kmers` (its columns are used as sort buffers and are
// overwritten) and writes each distinct k-mer once with its count to
// space.unique_words / space.counts; `runs` receives their number. Waits for
// the stream (the run count is needed on the host).
[[nodiscard]] Status sort_and_count(KmerColumns kmers, std::size_t n, int k, KmerSortSpace& space,
                                    std::size_t& runs, Stream& stream);

}  // namespace seqfuse::gpu
