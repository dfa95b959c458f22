#include "kmer/kmer_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace seqfuse::kmer {
namespace {

constexpr char kLetters[4] = {'A', 'C', 'G', 'T'};

// Four letters per byte of packed bases: a dump prints tens of millions of
// k-mers, and one table lookup per four bases keeps that cheap.
struct ByteLetters {
  std::array<std::array<char, 4>, 256> table{};
  constexpr ByteLetters() {
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned i = 0; i < 4; ++i) table[b][i] = kLetters[(b >> (6 - 2 * i)) & 3];
  }
};
constexpr ByteLetters kByteLetters;

// The n bases held in the low 2n bits of x, first base most significant.
void format_word(std::uint64_t x, int n, char* out) noexcept {
  int i = 0;
  for (const int head = n % 4; i < head; ++i) out[i] = kLetters[(x >> (2 * (n - 1 - i))) & 3];
  for (int left = n - i; left > 0; left -= 4, i += 4)
    std::memcpy(out + i, kByteLetters.table[(x >> (2 * (left - 4))) & 0xff].data(), 4);
}

}  // namespace

void format_kmer(const std::uint64_t* words, int k, char* out) noexcept {
  if (k <= kBasesPerWord) {
    format_word(words[0], k, out);
  } else {
    format_word(words[0], k - kBasesPerWord, out);
    format_word(words[1], kBasesPerWord, out + (k - kBasesPerWord));
  }
}

void append_dump_lines(const RecordBlock& block, std::string& out) {
  constexpr std::size_t kCountChars = 10;  // UINT32_MAX has 10 digits
  const std::size_t start = out.size();
  out.resize(start + block.size * (static_cast<std::size_t>(block.k) + kCountChars + 2));
  char* p = out.data() + start;
  for (std::size_t i = 0; i < block.size; ++i) {
    format_kmer(block.kmer(i), block.k, p);
    p += block.k;
    *p++ = ' ';
    p = std::to_chars(p, p + kCountChars, block.counts[i]).ptr;
    *p++ = '\n';
  }
  out.resize(static_cast<std::size_t>(p - out.data()));
}

bool parse_kmer(std::string_view letters, int k, std::uint64_t* words) noexcept {
  if (k < 1 || k > kMaxK || letters.size() != static_cast<std::size_t>(k)) return false;
  if (k <= kBasesPerWord) {
    Kmer<1> x{};
    if (!kmer_from_letters(letters.data(), k, x)) return false;
    words[0] = x.w[0];
  } else {
    Kmer<2> x{};
    if (!kmer_from_letters(letters.data(), k, x)) return false;
    words[0] = x.w[0];
    words[1] = x.w[1];
  }
  return true;
}

void reverse_complement(std::uint64_t* words, int k) noexcept {
  char letters[kMaxK];
  format_kmer(words, k, letters);
  std::reverse(letters, letters + k);
  for (int i = 0; i < k; ++i)
    letters[i] = kLetters[3 - base_code(static_cast<unsigned char>(letters[i]))];
  (void)parse_kmer(std::string_view(letters, static_cast<std::size_t>(k)), k, words);
}

void canonicalize(std::uint64_t* words, int k) noexcept {
  const int n = words_for_k(k);
  std::uint64_t rc[2] = {words[0], n == 2 ? words[1] : 0};
  reverse_complement(rc, k);
  if (std::lexicographical_compare(rc, rc + n, words, words + n)) std::copy(rc, rc + n, words);
}

}  // namespace seqfuse::kmer
