// fastq-trim on the device, one chunk of reads (pairs) at a time: the
// record texts and their field offsets go up, the shared per-read pipeline
// (read_pipeline.hpp) runs one thread per read (pair), the kept records are
// formatted into the output text in input order (an exclusive scan of
// their output lengths), and fastp's statistics and counters accumulate in
// device memory across chunks. Plain C++: src/ includes it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/preprocess/read_pipeline.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::preprocess {

// One record's fields as offsets into its chunk's text (no line ends in
// it): the layout of src/preprocess's FastqRecord, copied as it is.
struct DeviceRecord {
  std::uint32_t header, header_length;
  std::uint32_t plus, plus_length;
  std::uint32_t seq, qual;
  std::uint32_t length;
  std::uint32_t flags;  // FastqRecord's trailing bool and padding; unused here
};
static_assert(sizeof(DeviceRecord) == 32, "one record is 32 bytes");

// The longest read the device statistics take; a chunk holding a longer
// one is trimmed on the host (the engine checks).
inline constexpr int kDeviceMaxCycles = 512;
inline constexpr int kStatsKmers = 1024;  // fastp's 5-mers

// Per-read statistics (fastp's Stats) of one side, before or after
// filtering, as 64-bit words: letters[cycle][byte & 7][k] with k = bases,
// Q20 bases, Q30 bases, quality sum (two's complement), then the 5-mer
// counts, then reads and the length sum.
inline constexpr std::size_t kStatsLetterWords = std::size_t{kDeviceMaxCycles} * 8 * 4;
inline constexpr std::size_t kStatsKmerWord = kStatsLetterWords;
inline constexpr std::size_t kStatsReadsWord = kStatsKmerWord + kStatsKmers;
inline constexpr std::size_t kStatsLengthWord = kStatsReadsWord + 1;
inline constexpr std::size_t kStatsWords = kStatsLengthWord + 1;
enum StatsSlot : int { kBefore1 = 0, kAfter1 = 1, kBefore2 = 2, kAfter2 = 3, kStatsSlots = 4 };

// fastp's filter counters as 64-bit words at these indices.
enum CounterWord : int {
  kFateWords = 0,  // 32: reads by fate code (a pair adds 2)
  kAdapterReadsWord = 32,
  kAdapterBasesWord = 33,
  kPolyXReadsWords = 34,  // 4, in fastp's order A T C G (poly_x_base)
  kPolyXBasesWords = 38,  // 4
  kCorrectedReadsWord = 42,
  kCorrectionWords = 43,   // 64: fastp's correction matrix
  kInsertSizeWords = 107,  // unknown_insert + 1 = 513 bins
  kReadsOutWord = 620,
  kBasesOutWord = 621,
  kCounterWords = 622,
};

// An adapter sequence cut off a read, its bytes at cut_bytes + offset.
struct AdapterCutEntry {
  std::uint32_t side;  // 0: read 1, 1: read 2
  std::uint32_t length;
  std::uint32_t offset;
};

// Per read: the kept part as written; length < 0: not written.
struct ReadResult {
  std::int32_t begin, length;
};

// The device buffers of one chunk (all device pointers). Side 1 is unused
// for single-end reads.
struct TrimChunkBuffers {
  std::size_t records = 0;  // reads, or pairs
  bool paired = false;
  bool interleaved = false;  // pairs: read 1 and read 2 both to out[0]
  char* text[2] = {nullptr, nullptr};
  std::size_t text_bytes[2] = {0, 0};
  const DeviceRecord* record[2] = {nullptr, nullptr};
  char* rc2 = nullptr;  // text_bytes[1] bytes: read 2's reverse complements
  ReadResult* result[2] = {nullptr, nullptr};
  std::uint32_t* out_length[2] = {nullptr, nullptr};  // records + 1 each
  std::uint32_t* out_offset[2] = {nullptr, nullptr};  // records + 1 each
  char* out[2] = {nullptr, nullptr};
  std::size_t out_capacity[2] = {0, 0};
  AdapterCutEntry* cuts = nullptr;     // 2 * records entries
  std::uint32_t* cut_count = nullptr;  // [0]: entries, [1]: bytes (zeroed by trim_chunk)
  char* cut_bytes = nullptr;           // cut_capacity bytes (trim_cut_capacity)
  std::size_t cut_capacity = 0;
  unsigned long long* stats = nullptr;     // kStatsSlots * kStatsWords, accumulated
  unsigned long long* counters = nullptr;  // kCounterWords, accumulated
  DeviceBuffer* scratch = nullptr;         // the scan's temporary storage
};

// Output bytes a chunk can need at most on side `side`.
[[nodiscard]] std::size_t trim_output_capacity(std::size_t text_bytes, std::size_t records);

// Adapter bytes a chunk can cut at most: every read's bases, or an adapter's
// head where the adapter starts before a shorter read.
[[nodiscard]] std::size_t trim_cut_capacity(std::size_t text_bytes, std::size_t records,
                                            const PipelineParams& params);

// Queues the chunk's work on `stream`: statistics before, the pipeline,
// statistics after, the scan and the formatting. out_offset[side][records]
// then holds the output's size, cut_count the adapter cuts. Refuses
// (without queuing anything) buffers that do not fit the sizes given.
// params' adapter and FASTA pointers must be device pointers.
[[nodiscard]] Status trim_chunk(const TrimChunkBuffers& buffers, const PipelineParams& params,
                                Stream& stream);

}  // namespace seqfuse::gpu::preprocess
