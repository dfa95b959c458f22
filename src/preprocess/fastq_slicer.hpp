// FASTQ input cut into chunks of whole records without parsing them: the
// reading thread only finds line ends and moves the bytes into the chunk as
// they stand in the file; parse_records (fastq_records.hpp) then finds the
// fields on a worker thread, so parsing runs on every worker instead of on
// the one thread per file that reads (issue 17: one reading thread parsed
// 1.1 GB/s, a third of what the trimming downstream takes).
//
// A plain regular file is mapped (copy on write) instead of read: a chunk's
// text borrows its bytes from the mapping (io::TextBuffer::borrow), so the
// reading thread copies nothing and only finds the line ends, and the engines
// edit sequences in place on private copies of the pages they touch (issue
// 17: reading and copying bounded the GPU run). Compressed input, standard
// input and pipes are read in pieces into the chunk.
//
// A record is four lines, as fastp reads it. Blank lines between records are
// dropped, as FastqRecordReader skips them; a blank line inside a record is a
// line (an empty read's sequence). A record cut short by the end of the
// input stays in the chunk for parse_records to report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <memory>

#include "core/regular_file.hpp"
#include "io/compressed_input.hpp"
#include "preprocess/fastq_records.hpp"

namespace seqfuse::preprocess {

class FastqSlicer {
 public:
  // "-" reads standard input. Plain, gzip or BGZF (CompressedInput). A
  // plain regular file is mapped unless `map_plain_files` is false or
  // SEQFUSE_TRIM_STREAM is set (a measuring knob), or the mapping fails.
  explicit FastqSlicer(const std::string& path, bool map_plain_files = true);

  // Replaces chunk.text with the next `records` records of the input (fewer
  // at its end), stopping early after the record that takes the text past
  // `max_bytes`. Sets chunk.first_record; leaves chunk.records empty.
  // Returns the records begun (the last one may be cut short at the end).
  // A mapped input's chunks borrow their text from the mapping, which lives
  // as long as this slicer.
  std::size_t slice(ReadChunk& chunk, std::size_t records, std::size_t max_bytes);

  // True when the input is mapped rather than read (for tests and traces).
  [[nodiscard]] bool mapped() const noexcept { return mapped_ != nullptr; }

  [[nodiscard]] const std::string& display_name() const { return input_.display_name(); }
  [[nodiscard]] std::uint64_t records() const { return records_; }

 private:
  bool read_more(io::TextBuffer& text, std::size_t wanted);  // false at the end of the input

  io::CompressedInput input_;
  std::unique_ptr<MappedRegularFile> mapped_;  // plain regular files
  std::size_t mapped_at_ = 0;                  // the next chunk's start in the mapping
  std::string carry_;  // read input: bytes past the last cut, the next chunk's start
  bool at_end_ = false;
  std::uint64_t records_ = 0;
  double bytes_per_line_ = 100;  // read-ahead estimate, from what was seen
};

}  // namespace seqfuse::preprocess
