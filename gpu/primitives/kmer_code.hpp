// k-mer packing shared by the GPU kernels and the CPU engine (Jellyfish's
// encoding): A=0 C=1 G=2 T=3, two bits a base, the first base of the k-mer in
// the most significant bits. With that order the numeric order of packed
// k-mers is the lexicographic order of their strings, so a sorted database
// dumps in sorted text order, and the canonical form (the smaller of a k-mer
// and its reverse complement) is the same as Jellyfish's -C.
//
// K-mers up to 32 bases fit one 64-bit word (Kmer<1>); up to 63 bases two
// words (Kmer<2>), w[0] holding the high bits.
#pragma once

#include <cstdint>

#include "gpu/primitives/base_code.hpp"
#include "gpu/primitives/host_device.hpp"

namespace seqfuse::kmer {

inline constexpr int kMaxK = 63;
inline constexpr int kBasesPerWord = 32;

SF_HOST_DEVICE constexpr int words_for_k(int k) {
  return k <= kBasesPerWord ? 1 : 2;
}

template <int W>
struct Kmer {
  static_assert(W == 1 || W == 2, "k-mers are one or two 64-bit words");
  std::uint64_t w[W];  // w[0] most significant
};

template <int W>
SF_HOST_DEVICE bool operator==(const Kmer<W>& a, const Kmer<W>& b) {
  for (int i = 0; i < W; ++i)
    if (a.w[i] != b.w[i]) return false;
  return true;
}

template <int W>
SF_HOST_DEVICE bool operator<(const Kmer<W>& a, const Kmer<W>& b) {
  for (int i = 0; i < W; ++i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
  return false;
}

// Bits of the top word that a k-mer of length k uses (the other words are full).
SF_HOST_DEVICE constexpr std::uint64_t top_word_mask(int k) {
  const int top_bases = k - (words_for_k(k) - 1) * kBasesPerWord;
  return top_bases == kBasesPerWord ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * top_bases)) - 1;
}

// Appends a base at the low end, dropping the oldest base at the high end.
template <int W>
SF_HOST_DEVICE void push_low(Kmer<W>& x, std::uint64_t code, std::uint64_t top_mask) {
  if constexpr (W == 2) {
    x.w[0] = ((x.w[0] << 2) | (x.w[1] >> 62)) & top_mask;
    x.w[1] = (x.w[1] << 2) | code;
  } else {
    x.w[0] = ((x.w[0] << 2) | code) & top_mask;
  }
}

// Prepends a base at the high end (position k-1), dropping the low base:
// how the reverse complement grows while the forward strand is read.
template <int W>
SF_HOST_DEVICE void push_high(Kmer<W>& x, std::uint64_t code, int top_shift) {
  if constexpr (W == 2) {
    x.w[1] = (x.w[1] >> 2) | (x.w[0] << 62);
    x.w[0] = (x.w[0] >> 2) | (code << top_shift);
  } else {
    x.w[0] = (x.w[0] >> 2) | (code << top_shift);
  }
}

// Rolls over a sequence one letter at a time and says when the last k letters
// form a k-mer: any letter that is not A/C/G/T (either case) breaks it, as in
// Jellyfish.
template <int W>
class KmerRoller {
 public:
  SF_HOST_DEVICE explicit KmerRoller(int k)
      : k_(k), top_mask_(top_word_mask(k)), top_shift_(2 * ((k - 1) % kBasesPerWord)) {
    clear();
  }

  SF_HOST_DEVICE void clear() {
    filled_ = 0;
    for (int i = 0; i < W; ++i) fwd_.w[i] = rev_.w[i] = 0;
  }

  // Feeds a 2-bit code (kBaseN breaks the k-mer); true once k valid bases
  // end here.
  SF_HOST_DEVICE bool push_code(std::uint8_t code) {
    if (code > 3) {
      filled_ = 0;
      return false;
    }
    push_low(fwd_, code, top_mask_);
    push_high(rev_, 3u - code, top_shift_);
    if (filled_ < k_) ++filled_;
    return filled_ == k_;
  }
  SF_HOST_DEVICE bool push_letter(char letter) {
    return push_code(base_code(static_cast<unsigned char>(letter)));
  }

  SF_HOST_DEVICE const Kmer<W>& forward() const { return fwd_; }
  SF_HOST_DEVICE const Kmer<W>& reverse_complement() const { return rev_; }
  SF_HOST_DEVICE const Kmer<W>& canonical() const { return rev_ < fwd_ ? rev_ : fwd_; }

 private:
  int k_;
  int filled_;
  std::uint64_t top_mask_;
  int top_shift_;
  Kmer<W> fwd_;
  Kmer<W> rev_;
};

// A well-mixed 64-bit hash of a k-mer (the murmur3 finalizer over the words):
// the same partition choice on the GPU and the CPU.
template <int W>
SF_HOST_DEVICE std::uint64_t kmer_hash(const Kmer<W>& x) {
  std::uint64_t h = x.w[0];
  if constexpr (W == 2) h ^= x.w[1] * 0x9e3779b97f4a7c15ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// Writes the k letters of `x` (no terminator).
template <int W>
SF_HOST_DEVICE void kmer_to_letters(const Kmer<W>& x, int k, char* out) {
  constexpr char kLetters[4] = {'A', 'C', 'G', 'T'};
  for (int i = 0; i < k; ++i) {
    const int from_low = k - 1 - i;  // base index counted from the low end
    const int word = W - 1 - from_low / kBasesPerWord;
    out[i] = kLetters[(x.w[word] >> (2 * (from_low % kBasesPerWord))) & 3];
  }
}

// Packs k letters; false if one of them is not A/C/G/T.
template <int W>
SF_HOST_DEVICE bool kmer_from_letters(const char* letters, int k, Kmer<W>& out) {
  for (int i = 0; i < W; ++i) out.w[i] = 0;
  const std::uint64_t top_mask = top_word_mask(k);
  for (int i = 0; i < k; ++i) {
    const std::uint8_t code = base_code(static_cast<unsigned char>(letters[i]));
    if (code > 3) return false;
    push_low(out, code, top_mask);
  }
  return true;
}

}  // namespace seqfuse::kmer
