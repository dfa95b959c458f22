// The FASTA record rule, written once for every line source: RecordParser
// runs it over a LineBuffer (streamed input), the parallel reader over
// TextLines (a slice of a file already in memory). Both sources hand out the
// same lines, so both paths build the same records and fail on the same ones.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "io/batch.hpp"
#include "io/record_text.hpp"

namespace seqfuse::io {

// LineBuffer's interface (take_lines, peek) over text in memory: lines end at
// '\n' and lose one trailing '\r'; a last line without '\n' still counts.
class TextLines {
 public:
  explicit TextLines(std::string_view text) noexcept
      : cursor_(text.data()), end_(text.data() + text.size()) {}

  [[nodiscard]] std::size_t take_lines(std::string_view* lines, std::size_t count) noexcept {
    std::size_t taken = 0;
    while (taken < count && cursor_ != end_) {
      const auto* newline = static_cast<const char*>(
          std::memchr(cursor_, '\n', static_cast<std::size_t>(end_ - cursor_)));
      const char* const line_end = newline != nullptr ? newline : end_;
      lines[taken++] = line_without_cr(cursor_, line_end);
      cursor_ = newline != nullptr ? newline + 1 : end_;
    }
    return taken;
  }

  // The next byte without consuming it; -1 at the end of the text.
  [[nodiscard]] int peek() const noexcept {
    return cursor_ == end_ ? -1 : static_cast<unsigned char>(*cursor_);
  }

 private:
  const char* cursor_;
  const char* end_;
};

// Appends the sequence lines of `lines` up to the next header line (or the
// end) to `bases`: blank lines add nothing, bytes are stored as they stand,
// and a line with a byte below 0x09 throws RecordSyntaxError.
template <class Lines, class Bases>
void append_sequence_lines(Lines& lines, Bases& bases) {
  std::string_view line;
  for (int c = lines.peek(); c >= 0 && c != '>'; c = lines.peek()) {
    (void)lines.take_lines(&line, 1);
    if (has_binary_bytes(line)) throw RecordSyntaxError{"binary data in sequence"};
    bases.insert(bases.end(), line.begin(), line.end());
  }
}

// Appends one FASTA record from `lines` to `batch` and returns true, or
// returns false when only blank lines are left. A record is a '>' header line
// and the lines after it up to the next line that starts with '>': blank lines
// add nothing, bytes are stored as they stand (case kept, no alphabet check),
// and only bytes below 0x09 are rejected. Throws RecordSyntaxError for a bad
// record; `batch` then holds its appended pieces, which the caller discards.
template <class Lines>
bool parse_fasta_record(Lines& lines, SequenceBatch& batch) {
  std::string_view line;
  do {
    if (lines.take_lines(&line, 1) == 0) return false;
  } while (line.empty());
  // Only reachable at the first record or after "\r" oddities: every record
  // ends where the next line starts with '>'.
  if (line.front() != '>') throw RecordSyntaxError{"expected '>' line, found " + quoted(line)};
  append_header(batch, line.substr(1));
  append_sequence_lines(lines, batch.bases);
  batch.commit_record();
  return true;
}

// Appends every FASTA record left in `lines` (at a header line or blank
// lines before one) to `batch`. On RecordSyntaxError the batch holds the
// complete records before the bad one, which is therefore record
// batch.size() + 1 of the lines.
inline void parse_fasta_lines(TextLines& lines, SequenceBatch& batch) {
  try {
    while (parse_fasta_record(lines, batch)) {
    }
  } catch (...) {
    batch.discard_partial_record();
    throw;
  }
}

// The same over whole lines of text in memory.
inline void parse_fasta_text(std::string_view text, SequenceBatch& batch) {
  TextLines lines(text);
  parse_fasta_lines(lines, batch);
}

}  // namespace seqfuse::io
