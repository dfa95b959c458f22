// FASTQ input cut into chunks of whole records without parsing them: the
// reading thread only finds line ends and moves the bytes into the chunk as
// they stand in the file; parse_records (fastq_records.hpp) then finds the
// fields on a worker thread, so parsing runs on every worker instead of on
// the one thread per file that reads (issue 17: one reading thread parsed
// 1.1 GB/s, a third of what the trimming downstream takes).
//
// A record is four lines, as fastp reads it. Blank lines between records are
// dropped, as FastqRecordReader skips them; a blank line inside a record is a
// line (an empty read's sequence). A record cut short by the end of the
// input stays in the chunk for parse_records to report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/compressed_input.hpp"
#include "preprocess/fastq_records.hpp"

namespace seqfuse::preprocess {

class FastqSlicer {
 public:
  // "-" reads standard input. Plain, gzip or BGZF (CompressedInput).
  explicit FastqSlicer(const std::string& path);

  // Replaces chunk.text with the next `records` records of the input (fewer
  // at its end), stopping early after the record that takes the text past
  // `max_bytes`. Sets chunk.first_record; leaves chunk.records empty.
  // Returns the records begun (the last one may be cut short at the end).
  std::size_t slice(ReadChunk& chunk, std::size_t records, std::size_t max_bytes);

  [[nodiscard]] const std::string& display_name() const { return input_.display_name(); }
  [[nodiscard]] std::uint64_t records() const { return records_; }

 private:
  bool read_more(io::TextBuffer& text, std::size_t wanted);  // false at the end of the input

  io::CompressedInput input_;
  std::string carry_;  // bytes read past the last cut: the next chunk's start
  bool at_end_ = false;
  std::uint64_t records_ = 0;
  double bytes_per_line_ = 100;  // read-ahead estimate, from what was seen
};

}  // namespace seqfuse::preprocess
