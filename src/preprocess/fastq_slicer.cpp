#include "preprocess/fastq_slicer.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "core/error.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace seqfuse::preprocess {
namespace {

// Reads at most this much at a time, and at least the smaller amount; past
// the estimated end of a chunk only a little is read, so what is carried
// into the next chunk (and copied again) stays small.
constexpr std::size_t kLargestRead = std::size_t{4} << 20;
constexpr std::size_t kSmallestRead = std::size_t{64} << 10;

#if defined(__SSE2__)
// Bit i set where block[i] == c, for 64 bytes.
std::uint64_t byte_mask(const char* block, char c) {
  const __m128i wanted = _mm_set1_epi8(c);
  std::uint64_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * k));
    const auto bits = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, wanted)));
    mask |= std::uint64_t{bits} << (16 * k);
  }
  return mask;
}
#endif

// The slicer's fast path: passes over up to `most` whole lines from `text`
// (the start of a line) in 64-byte blocks, counting line ends, and returns
// how many it passed and where the last one ends (just after its '\n').
// It stops before a block holding a '\r' or a blank line (two line ends in
// a row, or one at `text`), which the line-by-line loop handles (blank
// lines between records are dropped), and before a partial block. One
// memchr a line took a third of the reading thread's time (issue 17).
std::size_t pass_lines(const char* text, std::size_t bytes, std::size_t most, std::size_t& end) {
  end = 0;
  std::size_t lines = 0;
#if defined(__SSE2__)
  std::uint64_t line_end_before = 1;  // `text` starts a line
  for (std::size_t at = 0; at + 64 <= bytes && lines < most; at += 64) {
    std::uint64_t ends = byte_mask(text + at, '\n');
    if (byte_mask(text + at, '\r') != 0 || (ends & ((ends << 1) | line_end_before)) != 0) break;
    line_end_before = ends >> 63;
    // One step a line end (under one a block for short reads' lines);
    // std::popcount is a library call without -mpopcnt.
    for (; ends != 0; ends &= ends - 1) {
      end = at + static_cast<std::size_t>(std::countr_zero(ends)) + 1;
      if (++lines == most) return lines;
    }
  }
#else
  (void)text;
  (void)bytes;
  (void)most;
#endif
  return lines;
}

}  // namespace

FastqSlicer::FastqSlicer(const std::string& path, bool map_plain_files) : input_(path) {
  std::error_code ignored;
  if (!map_plain_files || std::getenv("SEQFUSE_TRIM_STREAM") != nullptr) return;
  if (input_.compressed() || path == "-" || !std::filesystem::is_regular_file(path, ignored) ||
      std::filesystem::file_size(path, ignored) == 0)
    return;
  try {
    mapped_ = std::make_unique<MappedRegularFile>(path, "FASTQ input",
                                                  MappedRegularFile::Edits::private_copies);
  } catch (const Error&) {
    return;  // no address space or memory for the mapping: read it instead
  }
  // CompressedInput drops a UTF-8 byte-order mark from the start; so here.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(mapped_->data(), std::min(mapped_->size(), kBom.size())) == kBom)
    mapped_at_ = kBom.size();
}

bool FastqSlicer::read_more(io::TextBuffer& text, std::size_t wanted) {
  if (at_end_ || mapped_) return false;  // a mapped chunk holds the whole rest of the file
  const std::size_t size = text.size();
  const std::size_t piece = std::clamp(wanted, kSmallestRead, kLargestRead);
  text.resize(size + piece);
  const std::size_t got = input_.read(text.data() + size, piece);
  text.resize(size + got);
  if (got == 0) at_end_ = true;
  return got > 0;
}

std::size_t FastqSlicer::slice(ReadChunk& chunk, std::size_t records, std::size_t max_bytes) {
  io::TextBuffer& text = chunk.text;
  chunk.records.clear();
  chunk.first_record = records_;
  if (mapped_) {
    text.borrow(mapped_->editable_data() + mapped_at_, mapped_->size() - mapped_at_);
  } else {
    text.assign(carry_);
    carry_.clear();
  }
  const std::size_t wanted_lines = 4 * records;
  // Lines are scanned at `at`; the chunk's bytes end at `kept`, which falls
  // behind `at` only once a blank line was dropped (the lines after it are
  // moved down then, one pass for the whole chunk).
  std::size_t lines = 0, at = 0, kept = 0, slow_until = 0;
  while (lines < wanted_lines) {
    // Whole clean lines at once, while no blank line was dropped and the
    // chunk stays below max_bytes (only a record's end is checked on it).
    // After it stopped, the next two blocks go line by line (CRLF files
    // would otherwise try every line again).
    if (kept == at && at < max_bytes && at >= slow_until) {
      std::size_t end = 0;
      lines += pass_lines(text.data() + at, std::min(text.size(), max_bytes) - at,
                          wanted_lines - lines, end);
      at += end;
      kept = at;
      if (lines == wanted_lines) break;
      slow_until = at + 128;
    }
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
  if (mapped_)
    mapped_at_ += at;
  else
    carry_.assign(text.data() + at, text.size() - at);
  text.resize(kept);
  const std::size_t begun = (lines + 3) / 4;
  records_ += begun;
  return begun;
}

}  // namespace seqfuse::preprocess
