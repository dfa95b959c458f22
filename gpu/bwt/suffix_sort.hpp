// The sorted suffixes of a 2-bit text on the device, handed back as the index
// writers need them: the BWT (one code a row) and the suffix array sampled
// every `interval` rows (interval 1: the whole array). Plain C++ so src/bwt
// can call it.
//
// Two ways to sort, chosen here by size (or forced for tests):
// - one pass (doubling_sort.cu): every suffix sorted at once by 21
//   characters, then prefix doubling over the suffixes still tied, for
//   fewer than 2^32 suffixes that fit the device at 34 bytes each;
// - buckets (bucket_sort.cu): the suffixes split by their first characters
//   into buckets that fit the device, each sorted by deepening keys of 21
//   characters and streamed out before the next; the text stays resident
//   (1 byte a code), so the only limit is the text itself and its BWT on the
//   host.
#pragma once

#include <cstdint>
#include <span>

#include "gpu/status.hpp"

namespace seqfuse::gpu::bwt {

// The code a row's BWT entry holds when its suffix is the whole text (the
// row of '$', bwa's primary).
inline constexpr std::uint8_t kSentinelCode = 4;

struct SortOutput {
  // text.size() + 1 entries: row r holds text[sa[r] - 1], or kSentinelCode
  // where sa[r] == 0.
  std::span<std::uint8_t> bwt;
  // text.size() / interval + 1 entries: sa[0], sa[interval], sa[2 interval]...
  std::span<std::uint64_t> samples;
  std::uint32_t interval = 1;
  // Host threads that copy the rows out of pinned staging (they also fault
  // in the pages of bwt and samples, which may be untouched).
  unsigned host_threads = 1;
};

struct SortPlan {
  // Suffixes a bucket may hold; 0 chooses from free device memory. A nonzero
  // value forces the bucketed path (tests force it on small texts).
  std::uint64_t bucket_suffixes = 0;
};

// A text sent to the device packed, as bwa's .pac packs a strand: `length`
// codes four a byte, the first in the two high bits of its byte (`bytes`
// holds at least ceil(length / 4)). With both_strands the text sorted is
// those codes followed by their reverse complement (2 x length codes),
// built on the device: an eighth of the bytes crosses PCIe.
struct PackedCodes {
  std::span<const std::uint8_t> bytes;
  std::uint64_t length = 0;
  bool both_strands = true;
};

// Device memory the one-pass sort needs for n codes (bytes).
[[nodiscard]] std::uint64_t one_pass_device_bytes(std::uint64_t n);
// Device memory the bucketed sort needs at least (the text and one small
// bucket); it takes whatever more is free for larger buckets.
[[nodiscard]] std::uint64_t bucketed_min_device_bytes(std::uint64_t n);

// Checked entry point. Fills `out` for text$ ('$' implicit and smallest, row
// 0 the '$' suffix, as bwt::suffix_array_cpu orders it). Returns
// kInvalidSize when out's spans do not fit the text or the interval is not
// a power of two, kInvalidArgument for a code above 3 (out untouched then).
// Runs on the calling thread's current device and waits for it; throws
// gpu::Error from failed runtime calls and gpu::OutOfMemory when even the
// bucketed sort cannot fit (more suffixes share their first kBinChars
// characters than a bucket holds: a text that repetitive goes to the CPU).
[[nodiscard]] Status sort_suffixes(std::span<const std::uint8_t> text, const SortOutput& out,
                                   const SortPlan& plan = {});
// The same for a packed text (kInvalidSize also when `bytes` is too short
// for `length`); out's spans fit the text the codes make.
[[nodiscard]] Status sort_suffixes(const PackedCodes& text, const SortOutput& out,
                                   const SortPlan& plan = {});

}  // namespace seqfuse::gpu::bwt
