// FastqChunkReader: a FASTQ file as large chunks of whole 4-line records,
// as the text stands in the file, for engines that parse on the device (the
// GPU k-mer counter). Only the chunk boundaries are found here: from the end
// of each read, backwards over a few lines, so the host touches a few hundred
// bytes per chunk instead of every byte.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "io/compressed_input.hpp"
#include "io/parallel_file.hpp"
#include "io/text_buffer.hpp"

namespace seqfuse::io {

// The first byte of the input that is not a line end, or '\0' for an empty
// input: '@' for FASTQ, '>' for FASTA. Opens and reads the start of `path`;
// do not use it on stdin ("-"), whose bytes it would consume.
[[nodiscard]] char first_symbol(const std::string& path);

// Where the bytes after the last complete record of text[0, n) begin. A
// record start is a line beginning with '@' whose line two further on begins
// with '+' (for valid FASTQ no other line does: a quality line may begin
// with '@', but two lines after it comes a sequence). Returns 0 when no whole
// record is in the text. Text that is not FASTQ gets a cut after its last
// line end, and the device check reports it.
[[nodiscard]] std::size_t whole_records_end(const char* text, std::size_t n);

class FastqChunkReader {
 public:
  // Chunks of about `chunk_bytes` (more when one record is larger). An
  // uncompressed regular file is read by up to `threads` threads at once.
  FastqChunkReader(const std::string& path, std::size_t chunk_bytes, unsigned threads = 1);

  // Fills `chunk` (give it pinned memory so copies to the device run
  // async) with the next whole records (the rest of the last read
  // waits for the next call). At the end of the input the last chunk gets
  // all that is left, with a final line end added when the file lacks one.
  // False once everything was handed out.
  bool next(TextBuffer& chunk);

  [[nodiscard]] const std::string& display_name() const noexcept { return input_.display_name(); }
  // Seconds spent in next() so far (SEQFUSE_TRACE: is the reader the bottleneck?).
  [[nodiscard]] double reading_seconds() const noexcept { return reading_seconds_; }

 private:
  [[nodiscard]] bool fill(TextBuffer& chunk);
  [[nodiscard]] std::size_t read_input(char* dst, std::size_t capacity);

  CompressedInput input_;
  std::unique_ptr<ParallelFile> plain_;  // set for an uncompressed regular file
  std::size_t chunk_bytes_;
  std::string carry_;  // bytes after the last whole record of the previous read
  bool at_end_ = false;
  double reading_seconds_ = 0;
};

}  // namespace seqfuse::io
