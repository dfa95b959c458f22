// FASTQ text parsed on the device: a chunk of whole 4-line records is copied
// as it is in the file, checked record by record, and every byte that is not
// a sequence letter (headers, '+' lines, qualities, line ends) is overwritten
// with 'N'. Since N breaks k-mers, the chunk then reads as one long sequence
// whose k-mers are exactly the k-mers of its reads, and extract_kmers takes
// it as a single record. This moves the parsing, the slowest host step of
// k-mer counting, to where the bandwidth is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu {

// Totals kept on the device across chunks (zero them before the first).
struct FastqTextTotals {
  unsigned long long records;
  unsigned long long bases;
  // (record index << 3) | FastqTextProblem of the first record, in the whole
  // input, that is not FASTQ; all ones while every record was good.
  unsigned long long first_bad;
};

enum FastqTextProblem : unsigned {
  kFastqNoAt = 1,           // the header line does not start with '@'
  kFastqNoPlus = 2,         // the third line does not start with '+'
  kFastqQualityLength = 3,  // the quality line's length differs from the sequence's
  kFastqIncomplete = 4,     // the text ends inside a record
};

// Work space for chunks of up to `capacity` bytes.
struct FastqTextSpace {
  explicit FastqTextSpace(std::size_t capacity);
  std::size_t capacity;
  DeviceBuffer tile_counts, tile_offsets;  // u32 newlines per 64-byte tile, and their prefix sums
  DeviceBuffer line_ends;                  // u32 offset of each '\n' in the chunk
  DeviceBuffer line_count;                 // u32 lines in the chunk
  DeviceBuffer first_record;               // u64 input-wide index of its first record
  DeviceBuffer scratch;                    // the scan's temporary storage
};

// Checks and masks text[0, n) in place, and adds its records and bases to
// *totals (device memory; its record count also numbers the records in
// error reports). The chunk must be whole records, each line ending in '\n'
// ('\r' before it is allowed).
[[nodiscard]] Status mask_fastq_text(char* text, std::size_t n, FastqTextSpace& space,
                                     FastqTextTotals* totals, Stream& stream);

}  // namespace seqfuse::gpu
