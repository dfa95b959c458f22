// FASTQ records for fastq-trim as they stand in the file: the header and
// '+' lines byte for byte (fastp writes them back unchanged), sequence and
// quality editable in place (base correction). src/io's parsers split the
// header into name and comment, which would not give fastp's bytes back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/compressed_input.hpp"
#include "io/text_buffer.hpp"

namespace seqfuse::preprocess {

// Offsets into ReadChunk::text. Sequence and quality have the same length.
struct FastqRecord {
  std::uint32_t header = 0, header_length = 0;  // from the '@'
  std::uint32_t plus = 0, plus_length = 0;      // from the '+'
  std::uint32_t seq = 0, qual = 0;
  std::uint32_t length = 0;
  bool duplicate = false;  // seen before (the duplication estimate, in input order)
};

// Up to a few thousand records (or pairs, with read 2 in a second chunk).
struct ReadChunk {
  io::TextBuffer text;
  std::vector<FastqRecord> records;
  std::uint64_t first_record = 0;  // 0-based index in the input of records[0]

  void clear() {
    text.clear();
    records.clear();
  }
  [[nodiscard]] std::size_t size() const { return records.size(); }
  [[nodiscard]] std::string_view header(const FastqRecord& r) const {
    return {text.data() + r.header, r.header_length};
  }
  [[nodiscard]] std::string_view plus(const FastqRecord& r) const {
    return {text.data() + r.plus, r.plus_length};
  }
  [[nodiscard]] char* seq_data(FastqRecord& r) { return text.data() + r.seq; }
  [[nodiscard]] char* qual_data(FastqRecord& r) { return text.data() + r.qual; }
  [[nodiscard]] std::string_view seq(const FastqRecord& r) const {
    return {text.data() + r.seq, r.length};
  }
  [[nodiscard]] std::string_view qual(const FastqRecord& r) const {
    return {text.data() + r.qual, r.length};
  }
};

class FastqRecordReader {
 public:
  // "-" reads standard input. Plain, gzip or BGZF (src/io's CompressedInput).
  // phred64: qualities are phred+64 and become phred+33 as fastp's -6 makes
  // them (q - 31, at least '!').
  explicit FastqRecordReader(const std::string& path, bool phred64 = false);

  // Appends the next record to `chunk`; false at the end of the input.
  // Throws seqfuse::Error "<what>, <file> record <n>" for a malformed record:
  // no '@' or '+' line, a record cut short, quality and sequence of
  // different lengths, quality characters outside phred+33 ('!' to '~').
  bool next(ReadChunk& chunk);

  [[nodiscard]] const std::string& display_name() const { return input_.display_name(); }
  [[nodiscard]] std::uint64_t records() const { return records_; }
  [[nodiscard]] std::uint64_t bytes_read() const { return input_.bytes_read(); }

 private:
  // The next line without its line end ('\n', or "\r\n"); false at the end.
  // The view lives until the next call.
  bool next_line(std::string_view& line);
  [[noreturn]] void fail(const std::string& what) const;

  io::CompressedInput input_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool at_end_ = false;
  std::uint64_t records_ = 0;
  bool phred64_ = false;
};

// Fills chunk.records from chunk.text holding whole FASTQ records as they
// stand in the file, line ends included (FastqSlicer's chunks): offsets point
// into the text, nothing is copied. The same checks and messages as
// FastqRecordReader::next, records numbered from chunk.first_record + 1;
// `name` is the file's display name.
void parse_records(ReadChunk& chunk, const std::string& name, bool phred64 = false);

}  // namespace seqfuse::preprocess
