#include "preprocess/fastq_slicer.hpp"

#include <algorithm>
#include <cstring>

namespace seqfuse::preprocess {
namespace {

// Reads at most this much at a time, and at least the smaller amount; past
// the estimated end of a chunk only a little is read, so what is carried
// into the next chunk (and copied again) stays small.
constexpr std::size_t kLargestRead = std::size_t{4} << 20;
constexpr std::size_t kSmallestRead = std::size_t{64} << 10;

}  // namespace

FastqSlicer::FastqSlicer(const std::string& path) : input_(path) {}

bool FastqSlicer::read_more(std::string& text, std::size_t wanted) {
  if (at_end_) return false;
  const std::size_t size = text.size();
  const std::size_t piece = std::clamp(wanted, kSmallestRead, kLargestRead);
  text.resize(size + piece);
  const std::size_t got = input_.read(text.data() + size, piece);
  text.resize(size + got);
  if (got == 0) at_end_ = true;
  return got > 0;
}

std::size_t FastqSlicer::slice(ReadChunk& chunk, std::size_t records, std::size_t max_bytes) {
  std::string& text = chunk.text;
  chunk.records.clear();
  chunk.first_record = records_;
  text.assign(carry_);
  carry_.clear();
  const std::size_t wanted_lines = 4 * records;
  // Lines are scanned at `at`; the chunk's bytes end at `kept`, which falls
  // behind `at` only once a blank line was dropped (the lines after it are
  // moved down then, one pass for the whole chunk).
  std::size_t lines = 0, at = 0, kept = 0;
  while (lines < wanted_lines) {
    const void* found =
        at < text.size() ? std::memchr(text.data() + at, '\n', text.size() - at) : nullptr;
    std::size_t end = 0;
    if (found != nullptr) {
      end = static_cast<std::size_t>(static_cast<const char*>(found) - text.data());
    } else {
      const auto left = static_cast<double>(wanted_lines - lines) * bytes_per_line_;
      if (read_more(text, static_cast<std::size_t>(left) + kSmallestRead)) continue;
      if (at == text.size()) break;  // the input ends after a line end
      end = text.size();             // its last line has none
    }
    const std::size_t length = end - at;
    const bool blank = length == 0 || (length == 1 && text[at] == '\r');
    const std::size_t next = std::min(end + 1, text.size());
    if (blank && lines % 4 == 0) {  // between records: dropped
      at = next;
      continue;
    }
    if (kept != at) std::memmove(text.data() + kept, text.data() + at, next - at);
    kept += next - at;
    at = next;
    ++lines;
    if (lines % 4 == 0 && kept > max_bytes) break;
  }
  if (lines > 0) bytes_per_line_ = static_cast<double>(kept) / static_cast<double>(lines);
  carry_.assign(text, at, std::string::npos);
  text.resize(kept);
  const std::size_t begun = (lines + 3) / 4;
  records_ += begun;
  return begun;
}

}  // namespace seqfuse::preprocess
