// SequenceReader: record-at-a-time reading of FASTA/FASTQ, plain or gzip/BGZF,
// by path or "-" for stdin. For bulk work use BatchReader instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "io/batch.hpp"
#include "io/record_parser.hpp"
#include "io/sequence_record.hpp"

namespace seqfuse::io {

class SequenceReader {
 public:
  // Throws seqfuse::Error "cannot open '<path>': <reason>".
  explicit SequenceReader(std::string path);

  // Stores the next record in `rec` (reusing its strings' capacity) and returns
  // true; returns false at the end of the input. A file without records is not
  // an error. A malformed record throws seqfuse::Error naming the file and the
  // 1-based record number, after every record before it has been returned.
  [[nodiscard]] bool next(SequenceRecord& rec);

  // FASTA or FASTQ; meaningful once next() has returned true.
  [[nodiscard]] SequenceFormat format() const noexcept { return buffer_.format; }

  [[nodiscard]] const std::string& display_name() const noexcept { return parser_.display_name(); }
  // Uncompressed input bytes read so far (runs a little ahead of the records).
  [[nodiscard]] std::uint64_t bytes_read() const noexcept { return parser_.bytes_read(); }

 private:
  RecordParser parser_;
  // Records are parsed a small batch at a time through the same fast path as
  // BatchReader, then copied out one by one.
  SequenceBatch buffer_;
  std::size_t position_ = 0;
  bool input_ended_ = false;
  std::exception_ptr pending_error_;  // raised once buffer_'s good records are out
};

}  // namespace seqfuse::io
