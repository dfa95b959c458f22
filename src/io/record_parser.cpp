#include "io/record_parser.hpp"

#include <bit>
#include <cstring>

#include "core/error.hpp"

namespace seqfuse::io {
namespace {

constexpr std::size_t kQuotedTextLimit = 20;

// Two lowercase hex digits, as in "0x1f".
std::string hex_digits(unsigned char byte) {
  constexpr char kDigits[] = "0123456789abcdef";
  return {kDigits[byte >> 4], kDigits[byte & 0xf]};
}

// The offending line as shown in an error message: at most 20 characters,
// control and non-ASCII bytes escaped so the message stays one printable line.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text.substr(0, kQuotedTextLimit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x" + hex_digits(byte);
    }
  }
  if (text.size() > kQuotedTextLimit) out += "...";
  out += '\'';
  return out;
}

// True when the text holds a byte below 0x09 (NUL and other control codes that
// never occur in sequence text but do in binary files). Eight bytes at a time:
// (w - 0x09..) & ~w & 0x80.. is non-zero exactly when some byte of w is < 0x09.
bool has_binary_bytes(std::string_view text) noexcept {
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

bool is_blank_byte(int c) noexcept {
  return c == '\n' || c == '\r';
}

bool is_header_space(char c) noexcept {
  return c == ' ' || c == '\t';
}

// The first space or tab in [begin, end), or end. Eight bytes at a time:
// read names such as "@gi|10957398|ref|NC_000958.1|_96980_97414_4:0:0_1:0:0_0/1"
// are long, and a byte loop here cost a sixth of FASTQ parse time.
static_assert(std::endian::native == std::endian::little, "byte order of find_header_space");
const char* find_header_space(const char* begin, const char* end) noexcept {
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

}  // namespace

RecordParser::RecordParser(const std::string& path) : input_(path), lines_(input_) {}

bool RecordParser::fill(SequenceBatch& batch, const BatchLimits& limits) {
  batch.clear();
  if (failure_) std::rethrow_exception(failure_);
  try {
    if (!format_known_) {
      format_ = detect_format();
      format_known_ = true;
    }
    if (!format_) return false;
    batch.format = *format_;
    batch.first_record = records_parsed_ - carry_.size();
    if (!carry_.empty()) {
      batch.push_back_from(carry_, 0);
      carry_.clear();
    }
    const bool fastq = *format_ == SequenceFormat::fastq;
    // `batch.empty() ||` guarantees progress even with limits of zero.
    while (batch.empty() ||
           (batch.size() < limits.max_records && batch.total_bases() < limits.max_bases)) {
      const bool parsed = fastq ? parse_fastq_record(batch) : parse_fasta_record(batch);
      if (!parsed) break;
      ++records_parsed_;
      if (batch.size() > 1 && batch.total_bases() > limits.max_bases) {
        carry_.format = batch.format;
        carry_.push_back_from(batch, batch.size() - 1);
        batch.pop_back();
        break;
      }
    }
  } catch (const ReadCancelled&) {
    batch.discard_partial_record();
    throw;
  } catch (...) {
    batch.discard_partial_record();
    failure_ = std::current_exception();
    throw;
  }
  return !batch.empty();
}

std::optional<SequenceFormat> RecordParser::detect_format() {
  for (;;) {
    const int c = lines_.peek();
    if (c < 0) return std::nullopt;
    if (c == '>') return SequenceFormat::fasta;
    if (c == '@') return SequenceFormat::fastq;
    auto first = static_cast<unsigned char>(c);
    if (is_blank_byte(c)) {
      std::string_view line;
      (void)lines_.take_lines(&line, 1);
      const auto non_cr = line.find_first_not_of('\r');
      if (non_cr == std::string_view::npos) continue;  // a blank line
      first = static_cast<unsigned char>(line[non_cr]);
    }
    // htslib needs a whole gzip header to recognise gzip; a file cut inside its
    // header arrives here as "plain" text starting with the magic byte 0x1f.
    constexpr unsigned char kGzipMagic = 0x1f;
    if (first == kGzipMagic && !input_.compressed()) {
      throw Error(display_name() + ": truncated or corrupt gzip input");
    }
    throw Error(display_name() + ": not FASTA or FASTQ (first byte 0x" + hex_digits(first) + ")");
  }
}

bool RecordParser::parse_fastq_record(SequenceBatch& batch) {
  std::string_view line[4];  // header, sequence, '+' line, quality
  for (;;) {                 // blank lines between records are allowed
    const int c = lines_.peek();
    if (c < 0) return false;
    if (!is_blank_byte(c)) break;
    (void)lines_.take_lines(line, 1);
    if (!line[0].empty()) fail("expected '@' line, found " + quoted(line[0]));
  }
  // All four lines at once: one buffer check per record instead of per line.
  const std::size_t got = lines_.take_lines(line, 4);
  if (line[0].front() != '@') fail("expected '@' line, found " + quoted(line[0]));
  if (got >= 3 && (line[2].empty() || line[2].front() != '+')) {
    fail("expected '+' line, found " + quoted(line[2]));
  }
  if (got < 4) fail("file ends inside a record");
  const std::string_view seq = line[1];
  const std::string_view qual = line[3];
  if (has_binary_bytes(seq)) fail("binary data in sequence");
  if (qual.size() != seq.size()) {
    fail("quality length " + std::to_string(qual.size()) + " differs from sequence length " +
         std::to_string(seq.size()));
  }
  append_header(batch, line[0].substr(1));
  batch.bases.insert(batch.bases.end(), seq.begin(), seq.end());
  batch.quals.insert(batch.quals.end(), qual.begin(), qual.end());
  batch.commit_record();
  return true;
}

bool RecordParser::parse_fasta_record(SequenceBatch& batch) {
  std::string_view line;
  do {
    if (lines_.take_lines(&line, 1) == 0) return false;
  } while (line.empty());
  // Only reachable at the first record or after "\r" oddities: every record
  // ends where the next line starts with '>'.
  if (line.front() != '>') fail("expected '>' line, found " + quoted(line));
  append_header(batch, line.substr(1));
  for (;;) {  // sequence lines up to the next header; blank lines add nothing
    const int c = lines_.peek();
    if (c < 0 || c == '>') break;
    (void)lines_.take_lines(&line, 1);
    if (has_binary_bytes(line)) fail("binary data in sequence");
    batch.bases.insert(batch.bases.end(), line.begin(), line.end());
  }
  batch.commit_record();
  return true;
}

void RecordParser::append_header(SequenceBatch& batch, std::string_view header_text) {
  // Plain loops: string_view::find_first_of searches its set once per byte and
  // showed up as a sixth of FASTQ parse time.
  const char* const begin = header_text.data();
  const char* const end = begin + header_text.size();
  const char* const name_end = find_header_space(begin, end);
  if (name_end == begin) fail("empty name");
  const char* comment_begin = name_end;
  while (comment_begin != end && is_header_space(*comment_begin)) ++comment_begin;
  const std::string_view name(begin, static_cast<std::size_t>(name_end - begin));
  const std::string_view comment(comment_begin, static_cast<std::size_t>(end - comment_begin));
  batch.names.append(name);
  batch.comments.append(comment);
}

void RecordParser::fail(const std::string& what) const {
  throw Error(display_name() + ": record " + std::to_string(records_parsed_ + 1) + ": " + what);
}

}  // namespace seqfuse::io
