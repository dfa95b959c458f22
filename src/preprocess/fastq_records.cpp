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

bool FastqRecordReader::next(ReadChunk& chunk) {
  std::string_view line;
  do {  // blank lines between records are allowed
    if (!next_line(line)) return false;
  } while (line.empty());
  if (line.front() != '@') fail("expected a FASTQ header ('@' line), found " + shown(line));
  std::string& text = chunk.text;
  FastqRecord r;
  const auto append = [&](std::string_view piece) {
    const auto at = static_cast<std::uint32_t>(text.size());
    text.append(piece);
    return at;
  };
  r.header = append(line);
  r.header_length = static_cast<std::uint32_t>(line.size());
  if (!next_line(line)) fail("file ends inside a record");
  const std::size_t seq_length = line.size();
  r.seq = append(line);
  if (!next_line(line)) fail("file ends inside a record");
  if (line.empty() || line.front() != '+') fail("expected a '+' line, found " + shown(line));
  r.plus = append(line);
  r.plus_length = static_cast<std::uint32_t>(line.size());
  if (!next_line(line)) fail("file ends inside a record (no quality line)");
  if (line.size() != seq_length) {
    text.resize(r.header);
    fail("quality length " + std::to_string(line.size()) + " differs from sequence length " +
         std::to_string(seq_length));
  }
  if (!all_phred33(line)) {
    const std::size_t i = first_outside_phred33(line);
    text.resize(r.header);
    fail("quality character " + shown(line.substr(i, 1)) + " at position " + std::to_string(i + 1) +
         " is outside phred+33 ('!' to '~')");
  }
  r.qual = append(line);
  if (phred64_)
    for (std::size_t i = r.qual; i < text.size(); ++i)
      text[i] = static_cast<char>(std::max(33, text[i] - 31));
  r.length = static_cast<std::uint32_t>(seq_length);
  chunk.records.push_back(r);
  ++records_;
  return true;
}

}  // namespace seqfuse::preprocess
