#include "bwt/bwa_index_files.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <ostream>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace seqfuse::bwt {
namespace {

// Where the 16-character word holding BWT character j sits in the final
// layout: each interval is its occurrence block, then 8 words of characters.
constexpr std::uint64_t word_of(std::uint64_t j) {
  return (j / kOccInterval) * kWordsPerInterval + kWordsPerOccBlock + (j % kOccInterval) / 16;
}
// bwt_B00's bit order: character j in bits 31-30 when j % 16 == 0.
constexpr unsigned shift_of(std::uint64_t j) {
  return static_cast<unsigned>(15 - (j & 15)) * 2;
}

// A block's four counts as bwa's memcpy leaves them: uint64 each, low half
// first, so writing every word little-endian writes little-endian counts.
void store_counts(std::uint32_t* block, const std::array<std::uint64_t, 4>& counts) {
  for (int c = 0; c < 4; ++c) {
    block[2 * c] = static_cast<std::uint32_t>(counts[c]);
    block[2 * c + 1] = static_cast<std::uint32_t>(counts[c] >> 32);
  }
}
std::array<std::uint64_t, 4> load_counts(const std::uint32_t* block) {
  std::array<std::uint64_t, 4> counts{};
  for (int c = 0; c < 4; ++c)
    counts[c] = block[2 * c] | static_cast<std::uint64_t>(block[2 * c + 1]) << 32;
  return counts;
}

template <class T>
void write_le(std::ostream& out, std::span<const T> values) {
  if constexpr (std::endian::native == std::endian::little) {
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size_bytes()));
  } else {
    for (T v : values) {
      char bytes[sizeof(T)];
      for (std::size_t b = 0; b < sizeof(T); ++b) bytes[b] = static_cast<char>(v >> (8 * b));
      out.write(bytes, sizeof(T));
    }
  }
}

void write_header(const BwaIndex& index, std::ostream& out) {
  const std::uint64_t primary[1] = {index.primary};
  write_le<std::uint64_t>(out, primary);
  write_le<std::uint64_t>(out, index.counts_before);
}

void check_stream(const std::ostream& out, const char* what) {
  if (!out) throw Error(std::string("writing the ") + what + " failed");
}

}  // namespace

std::uint64_t bwa_bwt_words(std::uint64_t seq_len) {
  const std::uint64_t occ_blocks = (seq_len + kOccInterval - 1) / kOccInterval + 1;
  return (seq_len + 15) / 16 + occ_blocks * kWordsPerOccBlock;
}

BwaIndex build_bwa_index(SortedSuffixes&& sorted, unsigned threads) {
  const std::uint64_t rows = sorted.bwt.size();
  if (rows == 0 || sorted.primary >= rows || sorted.bwt[sorted.primary] != kSentinelCode)
    throw Error("sorted suffixes without a row for the whole text");
  const std::uint64_t n = rows - 1;
  const std::uint32_t sa_interval = sorted.interval;
  if (sa_interval == 0 || !std::has_single_bit(sa_interval) ||
      sorted.samples.size() != n / sa_interval + 1)
    throw Error("suffix-array samples do not fit the interval " + std::to_string(sa_interval));

  BwaIndex index;
  index.seq_len = n;
  index.sa_interval = sa_interval;
  index.primary = sorted.primary;

  // Each 128-character interval is filled by one worker, which leaves its
  // own character counts in the next interval's block (written by no one
  // else) and adds them up per chunk of intervals; a second parallel pass
  // turns them into counts before each block, starting each chunk from the
  // sum of the chunks before it. Every word is written (block 0 here), so
  // the words are not zero-filled first.
  constexpr std::size_t kChunk = 4096;  // intervals a worker takes at once
  const std::uint64_t intervals = (n + kOccInterval - 1) / kOccInterval;
  index.bwt_words.resize(bwa_bwt_words(n));
  std::uint32_t* words = index.bwt_words.data();
  store_counts(words, {});
  // The last block follows the last word at once, even after a partial interval.
  const std::uint64_t last_block = index.bwt_words.size() - kWordsPerOccBlock;
  auto block_offset = [&](std::uint64_t b) { return std::min(b * kWordsPerInterval, last_block); };
  const std::uint64_t primary = index.primary;
  const std::uint8_t* bwt = sorted.bwt.data();
  std::vector<std::array<std::uint64_t, 4>> chunk_counts((intervals + kChunk - 1) / kChunk);
  parallel_chunks(intervals, kChunk, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    std::array<std::uint64_t, 4> chunk{};
    for (std::uint64_t b = begin; b < end; ++b) {
      std::array<std::uint64_t, 4> counts{};
      std::uint32_t word = 0;
      const std::uint64_t last = std::min(n, (b + 1) * kOccInterval);
      for (std::uint64_t j = b * kOccInterval; j < last; ++j) {
        // BWT position j is row j, or row j + 1 past the '$' row bwa drops.
        const std::uint8_t c = bwt[j + (j >= primary)];
        if (c > 3) throw Error("the BWT holds a second '$' or a code other than A, C, G, T");
        ++counts[c];
        word |= static_cast<std::uint32_t>(c) << shift_of(j);
        if ((j & 15) == 15 || j + 1 == last) {
          words[word_of(j)] = word;
          word = 0;
        }
      }
      store_counts(words + block_offset(b + 1), counts);
      for (int c = 0; c < 4; ++c) chunk[c] += counts[c];
    }
    chunk_counts[begin / kChunk] = chunk;
  });
  std::array<std::uint64_t, 4> running{};
  for (auto& chunk : chunk_counts) {  // each chunk's total becomes the counts before it
    const auto total = chunk;
    chunk = running;
    for (int c = 0; c < 4; ++c) running[c] += total[c];
  }
  parallel_chunks(intervals, kChunk, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    std::array<std::uint64_t, 4> before = chunk_counts[begin / kChunk];
    for (std::uint64_t b = begin; b < end; ++b) {
      std::uint32_t* block = words + block_offset(b + 1);
      const auto own = load_counts(block);
      for (int c = 0; c < 4; ++c) before[c] += own[c];
      store_counts(block, before);
    }
  });
  std::uint64_t cumulative = 0;
  for (int c = 0; c < 4; ++c) index.counts_before[c] = cumulative += running[c];

  index.samples = std::move(sorted.samples);
  return index;
}

BwaIndex build_bwa_index(std::span<const std::uint8_t> text, std::span<const std::uint64_t> sa,
                         std::uint32_t sa_interval, unsigned threads) {
  return build_bwa_index(
      sorted_from_suffix_array(text, {sa.begin(), sa.end()}, sa_interval, threads), threads);
}

void write_bwa_bwt(const BwaIndex& index, std::ostream& out) {
  write_header(index, out);
  write_le<std::uint32_t>(out, index.bwt_words);
  check_stream(out, "BWT (.bwt)");
}

void write_bwa_sa(const BwaIndex& index, std::ostream& out) {
  write_header(index, out);
  // bwa writes its int sa_intv as 8 bytes; the 4 after it are zeroed
  // (calloc'd struct padding), so it reads as a little-endian uint64.
  const std::uint64_t fields[2] = {index.sa_interval, index.seq_len};
  write_le<std::uint64_t>(out, fields);
  // bwt_cal_sa keeps rows 0, intv, 2*intv, ... <= n and dumps all but row 0.
  write_le<std::uint64_t>(out, std::span(index.samples).subspan(1));
  check_stream(out, "suffix array (.sa)");
}

std::vector<std::uint8_t> inverse_bwt(const BwaIndex& index) {
  const std::uint64_t n = index.seq_len;
  if (index.bwt_words.size() != bwa_bwt_words(n) || index.primary > n ||
      index.counts_before[3] != n)
    throw Error("BWT index is inconsistent (size, primary or counts)");
  const std::uint32_t* words = index.bwt_words.data();
  auto char_at = [&](std::uint64_t j) { return (words[word_of(j)] >> shift_of(j)) & 3u; };
  // Occurrences of c in BWT positions [0, j): the block's count, then the
  // characters of the block before j, read one by one (tests only).
  auto occ = [&](std::uint64_t j, unsigned c) {
    const std::uint64_t b = j / kOccInterval;
    std::uint64_t count = load_counts(words + b * kWordsPerInterval)[c];
    for (std::uint64_t k = b * kOccInterval; k < j; ++k) count += char_at(k) == c;
    return count;
  };
  std::vector<std::uint8_t> text(n);
  // Row 0 is the '$' suffix; its BWT character is the text's last one. LF
  // steps one character back each time until the primary ('$') row.
  std::uint64_t row = 0;
  for (std::uint64_t i = n; i-- > 0;) {
    if (row == index.primary) throw Error("BWT index is inconsistent: reached '$' early");
    const std::uint64_t j = row - (row > index.primary);
    const unsigned c = char_at(j);
    text[i] = static_cast<std::uint8_t>(c);
    row = 1 + (c == 0 ? 0 : index.counts_before[c - 1]) + occ(j, c);
  }
  if (row != index.primary) throw Error("BWT index is inconsistent: the text does not close");
  return text;
}

}  // namespace seqfuse::bwt
