#include "io/fastq_chunks.hpp"

#include <algorithm>
#include <cstring>

#include "core/report.hpp"

namespace seqfuse::io {

char first_symbol(const std::string& path) {
  CompressedInput input(path);
  char buffer[4096];
  while (std::size_t n = input.read(buffer, sizeof buffer)) {
    for (std::size_t i = 0; i < n; ++i)
      if (buffer[i] != '\n' && buffer[i] != '\r') return buffer[i];
  }
  return '\0';
}

std::size_t whole_records_end(const char* text, std::size_t n) {
  // The last complete lines, latest first: eight always hold a whole record
  // when the text has that many.
  constexpr int kLines = 8;
  std::size_t starts[kLines], ends[kLines];  // ends: the line's '\n'
  int found = 0;
  std::size_t line_end = n;
  while (line_end > 0 && text[line_end - 1] != '\n') --line_end;
  if (line_end == 0) return 0;  // not even one complete line
  const std::size_t after_last_line = line_end;
  while (found < kLines && line_end > 0) {
    std::size_t start = line_end - 1;  // at the '\n'
    while (start > 0 && text[start - 1] != '\n') --start;
    starts[found] = start;
    ends[found] = line_end - 1;
    ++found;
    line_end = start;
  }
  // In file order line i is entry found - 1 - i.
  for (int i = found - 4; i >= 0; --i) {
    const int header = found - 1 - i, plus = header - 2, quality = header - 3;
    if (text[starts[header]] == '@' && text[starts[plus]] == '+') return ends[quality] + 1;
  }
  // Fewer than eight lines and no record among them: wait for more text.
  // Eight lines and none: not FASTQ; the device check will say where.
  return found == kLines ? after_last_line : 0;
}

FastqChunkReader::FastqChunkReader(const std::string& path, std::size_t chunk_bytes,
                                   unsigned threads)
    : input_(path), chunk_bytes_(chunk_bytes) {
  if (!input_.compressed() && threads > 1) plain_ = ParallelFile::open(path, threads);
}

std::size_t FastqChunkReader::read_input(char* dst, std::size_t capacity) {
  return plain_ ? plain_->read(dst, capacity) : input_.read(dst, capacity);
}

bool FastqChunkReader::next(TextBuffer& chunk) {
  const Stopwatch clock;
  const bool filled = fill(chunk);
  reading_seconds_ += clock.seconds();
  return filled;
}

bool FastqChunkReader::fill(TextBuffer& chunk) {
  if (at_end_ && carry_.empty()) return false;
  std::size_t want = std::max(chunk_bytes_, carry_.size() + (chunk_bytes_ >> 2));
  for (;;) {
    chunk.resize(0);
    chunk.reserve(want + 1);  // + 1: room for a missing final line end
    char* text = chunk.data();
    std::copy(carry_.begin(), carry_.end(), text);
    std::size_t n = carry_.size();
    carry_.clear();
    while (!at_end_ && n < want) {
      const std::size_t got = read_input(text + n, want - n);
      if (got == 0) at_end_ = true;
      n += got;
    }
    if (at_end_) {
      if (n > 0 && text[n - 1] != '\n') text[n++] = '\n';
      chunk.resize(n);
      return n > 0;
    }
    const std::size_t cut = whole_records_end(text, n);
    if (cut > 0) {
      carry_.assign(text + cut, n - cut);
      chunk.resize(cut);
      return true;
    }
    // One record is larger than the chunk: read on with a larger one.
    carry_.assign(text, n);
    want *= 2;
  }
}

}  // namespace seqfuse::io
