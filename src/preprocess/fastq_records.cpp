#include "preprocess/fastq_records.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace seqfuse::preprocess {
namespace {

constexpr std::size_t kReadBytes = std::size_t{1} << 20;

std::string shown(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 20)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  if (line.size() > 20) out += "...";
  return "'" + out + "'";
}

// Every quality character in '!' to '~'. No early exit, so the compiler can
// check many bytes an instruction (the reading thread's hot loop); a line
// that fails is looked at again by first_outside_phred33.
bool all_phred33(std::string_view line) {
  unsigned char low = 0xff, high = 0;
  for (const char c : line) {
    const auto u = static_cast<unsigned char>(c);
    low = std::min(low, u);
    high = std::max(high, u);
  }
  return line.empty() || (low >= '!' && high <= '~');
}

std::size_t first_outside_phred33(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] >= '!' && line[i] <= '~') ++i;
  return i;
}

}  // namespace

FastqRecordReader::FastqRecordReader(const std::string& path, bool phred64)
    : input_(path), buffer_(kReadBytes * 2), phred64_(phred64) {}

void FastqRecordReader::fail(const std::string& what) const {
  throw Error(what + ", " + display_name() + " record " + std::to_string(records_ + 1));
}

bool FastqRecordReader::next_line(std::string_view& line) {
  std::size_t scanned = begin_;
  for (;;) {
    const void* found = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (found != nullptr) {
      const auto newline =
          static_cast<std::size_t>(static_cast<const char*>(found) - buffer_.data());
      std::size_t stop = newline;
      if (stop > begin_ && buffer_[stop - 1] == '\r') --stop;
      line = std::string_view(buffer_.data() + begin_, stop - begin_);
      begin_ = newline + 1;
      return true;
    }
    if (at_end_) {
      if (begin_ == end_) return false;
      std::size_t stop = end_;
      if (buffer_[stop - 1] == '\r') --stop;
      line = std::string_view(buffer_.data() + begin_, stop - begin_);
      begin_ = end_;
      return true;
    }
    // Keep the partial line, make room, read more.
    const std::size_t kept = end_ - begin_;
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, kept);
      begin_ = 0;
      end_ = kept;
    }
    if (buffer_.size() - end_ < kReadBytes) buffer_.resize(buffer_.size() * 2);
    scanned = end_;
    const std::size_t got = input_.read(buffer_.data() + end_, buffer_.size() - end_);
    if (got == 0) at_end_ = true;
    end_ += got;
  }
}

// What is wrong with a record's sequence, '+' and quality lines (without
// their line ends), or an empty string. Both readers name file and record.
std::string record_problem(std::string_view seq, std::string_view plus, std::string_view qual) {
  if (plus.empty() || plus.front() != '+') return "expected a '+' line, found " + shown(plus);
  if (qual.size() != seq.size())
    return "quality length " + std::to_string(qual.size()) + " differs from sequence length " +
           std::to_string(seq.size());
  if (!all_phred33(qual)) {
    const std::size_t i = first_outside_phred33(qual);
    return "quality character " + shown(qual.substr(i, 1)) + " at position " +
           std::to_string(i + 1) + " is outside phred+33 ('!' to '~')";
  }
  return {};
}

// fastp's -6: phred+64 becomes phred+33 (q - 31, at least '!').
void phred64_to_33(char* qual, std::size_t length) {
  for (std::size_t i = 0; i < length; ++i) qual[i] = static_cast<char>(std::max(33, qual[i] - 31));
}

bool FastqRecordReader::next(ReadChunk& chunk) {
  std::string_view line;
  do {  // blank lines between records are allowed
    if (!next_line(line)) return false;
  } while (line.empty());
  if (line.front() != '@') fail("expected a FASTQ header ('@' line), found " + shown(line));
  io::TextBuffer& text = chunk.text;
  FastqRecord r;
  const auto append = [&](std::string_view piece) {
    const auto at = static_cast<std::uint32_t>(text.size());
    text.append(piece);
    return at;
  };
  r.header = append(line);
  r.header_length = static_cast<std::uint32_t>(line.size());
  if (!next_line(line)) fail("file ends inside a record");
  r.seq = append(line);
  r.length = static_cast<std::uint32_t>(line.size());
  if (!next_line(line)) fail("file ends inside a record");
  r.plus = append(line);
  r.plus_length = static_cast<std::uint32_t>(line.size());
  const std::string_view plus(text.data() + r.plus, r.plus_length);
  if (plus.empty() || plus.front() != '+') {
    const std::string problem = record_problem({}, plus, {});
    text.resize(r.header);
    fail(problem);
  }
  if (!next_line(line)) {
    text.resize(r.header);
    fail("file ends inside a record (no quality line)");
  }
  const std::string problem =
      record_problem(std::string_view(text.data() + r.seq, r.length), plus, line);
  if (!problem.empty()) {
    text.resize(r.header);
    fail(problem);
  }
  r.qual = append(line);
  if (phred64_) phred64_to_33(text.data() + r.qual, r.length);
  chunk.records.push_back(r);
  ++records_;
  return true;
}

void parse_records(ReadChunk& chunk, const std::string& name, bool phred64) {
  chunk.records.clear();
  io::TextBuffer& text = chunk.text;
  std::size_t at = 0;
  const auto fail = [&](const std::string& what) {
    throw Error(what + ", " + name + " record " +
                std::to_string(chunk.first_record + chunk.records.size() + 1));
  };
  // The next line from `at` without its line end; false at the end of the text.
  const auto next_line = [&](std::size_t& begin, std::size_t& length) {
    if (at >= text.size()) return false;
    const void* found = std::memchr(text.data() + at, '\n', text.size() - at);
    const std::size_t end =
        found ? static_cast<std::size_t>(static_cast<const char*>(found) - text.data())
              : text.size();
    begin = at;
    length = end - at;
    if (length > 0 && text[end - 1] == '\r') --length;
    at = found ? end + 1 : end;
    return true;
  };
  std::size_t begin[4], length[4];
  while (next_line(begin[0], length[0])) {
    // FastqSlicer left no blank lines between records.
    if (length[0] == 0 || text[begin[0]] != '@')
      fail("expected a FASTQ header ('@' line), found " +
           shown(std::string_view(text.data() + begin[0], length[0])));
    if (!next_line(begin[1], length[1]) || !next_line(begin[2], length[2]))
      fail("file ends inside a record");
    const std::string_view plus(text.data() + begin[2], length[2]);
    if (plus.empty() || plus.front() != '+') fail(record_problem({}, plus, {}));
    if (!next_line(begin[3], length[3])) fail("file ends inside a record (no quality line)");
    const std::string problem =
        record_problem(std::string_view(text.data() + begin[1], length[1]), plus,
                       std::string_view(text.data() + begin[3], length[3]));
    if (!problem.empty()) fail(problem);
    if (text.size() > 0xffffffffu) fail("chunk of records over 4 GiB");
    FastqRecord r;
    r.header = static_cast<std::uint32_t>(begin[0]);
    r.header_length = static_cast<std::uint32_t>(length[0]);
    r.seq = static_cast<std::uint32_t>(begin[1]);
    r.plus = static_cast<std::uint32_t>(begin[2]);
    r.plus_length = static_cast<std::uint32_t>(length[2]);
    r.qual = static_cast<std::uint32_t>(begin[3]);
    r.length = static_cast<std::uint32_t>(length[1]);
    if (phred64) phred64_to_33(text.data() + r.qual, r.length);
    chunk.records.push_back(r);
  }
}

}  // namespace seqfuse::preprocess
