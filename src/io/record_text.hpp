// The byte-level rules of FASTA/FASTQ text that every parser shares: where a
// line ends, how a header splits into name and comment, which bytes count as
// binary, and how offending text is quoted in an error message. The hot ones
// are inline: they run once per line or header, and a call across files cost
// measurable parse time.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "io/batch.hpp"

namespace seqfuse::io {

// A malformed record, thrown by the shared parsing code with the text that
// follows "<file>: record <n>: " in the final message. Only the caller knows
// the file name and the record number, so it turns this into seqfuse::Error.
struct RecordSyntaxError {
  std::string what;
};

// A UTF-8 byte-order mark (EF BB BF), which some Windows editors put at the
// start of a text file, is not part of the first record: the readers drop it
// from the first bytes they hand out. Returns the bytes left of text[0, n).
inline std::size_t drop_utf8_bom(char* text, std::size_t n) noexcept {
  if (n < 3 || std::memcmp(text, "\xEF\xBB\xBF", 3) != 0) return n;
  std::memmove(text, text + 3, n - 3);
  return n - 3;
}

// Two lowercase hex digits, as in "0x1f".
[[nodiscard]] std::string hex_digits(unsigned char byte);

// The offending line as shown in an error message: at most 20 characters,
// control and non-ASCII bytes escaped so the message stays one printable line.
[[nodiscard]] std::string quoted(std::string_view text);

// A line from `begin` up to its '\n' (excluded), without one trailing '\r'.
inline std::string_view line_without_cr(const char* begin, const char* end) noexcept {
  if (end != begin && end[-1] == '\r') --end;
  return {begin, static_cast<std::size_t>(end - begin)};
}

// True when the text holds a byte below 0x09 (NUL and other control codes that
// never occur in sequence text but do in binary files). Eight bytes at a time:
// (w - 0x09..) & ~w & 0x80.. is non-zero exactly when some byte of w is < 0x09.
inline bool has_binary_bytes(std::string_view text) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  const char* p = text.data();
  std::size_t left = text.size();
  std::uint64_t found = 0;
  for (; left >= 8; p += 8, left -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    found |= (word - kOnes * 0x09) & ~word & kHighBits;
  }
  for (; left > 0; ++p, --left) found |= static_cast<unsigned char>(*p) < 0x09 ? 1 : 0;
  return found != 0;
}

inline bool is_blank_byte(int c) noexcept {
  return c == '\n' || c == '\r';
}

inline bool is_header_space(char c) noexcept {
  return c == ' ' || c == '\t';
}

// The first space or tab in [begin, end), or end. Eight bytes at a time:
// read names such as "@gi|10957398|ref|NC_000958.1|_96980_97414_4:0:0_1:0:0_0/1"
// are long, and a byte loop here cost a sixth of FASTQ parse time.
static_assert(std::endian::native == std::endian::little, "byte order of find_header_space");
inline const char* find_header_space(const char* begin, const char* end) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  const char* p = begin;
  for (; end - p >= 8; p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    const std::uint64_t spaces = word ^ (kOnes * ' ');
    const std::uint64_t tabs = word ^ (kOnes * '\t');
    // A zero byte in `spaces` or `tabs` marks a match; the lowest flagged byte
    // is always a true match (false flags only appear above a true one).
    const std::uint64_t found =
        ((spaces - kOnes) & ~spaces & kHighBits) | ((tabs - kOnes) & ~tabs & kHighBits);
    if (found != 0) return p + std::countr_zero(found) / 8;  // little-endian byte order
  }
  while (p != end && !is_header_space(*p)) ++p;
  return p;
}

// Appends the name and comment of a header line (without its '>' or '@') to
// the record being built in `batch`: the name runs to the first space or tab,
// the comment is the rest after that one blank, further blanks kept (as
// kseq splits a header, so bwa index's .ann and a rewritten header keep the
// bytes the file had). Throws RecordSyntaxError "empty name".
inline void append_header(SequenceBatch& batch, std::string_view header_text) {
  // Plain loops: string_view::find_first_of searches its set once per byte and
  // showed up as a sixth of FASTQ parse time.
  const char* const begin = header_text.data();
  const char* const end = begin + header_text.size();
  const char* const name_end = find_header_space(begin, end);
  if (name_end == begin) throw RecordSyntaxError{"empty name"};
  const char* const comment_begin = name_end == end ? end : name_end + 1;
  batch.names.append(begin, static_cast<std::size_t>(name_end - begin));
  batch.comments.append(comment_begin, static_cast<std::size_t>(end - comment_begin));
}

}  // namespace seqfuse::io
