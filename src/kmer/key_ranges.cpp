#include "kmer/key_ranges.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "core/error.hpp"
#include "gpu/primitives/kmer_code.hpp"

namespace seqfuse::kmer {
namespace {

constexpr std::size_t kSmallestSample = 4096;

template <int W>
void roll(std::string_view sequence, int k, bool canonical, std::vector<KmerKey>& out,
          std::size_t limit) {
  KmerRoller<W> roller(k);
  for (const char c : sequence) {
    if (out.size() >= limit) return;
    if (!roller.push_letter(c)) continue;
    const Kmer<W>& x = canonical ? roller.canonical() : roller.forward();
    out.push_back({x.w[0], W == 2 ? x.w[W - 1] : 0});
  }
}

// K-mers of random bases (fixed seed), for inputs too small to sample.
std::vector<KmerKey> model_sample(int k, bool canonical) {
  std::mt19937_64 rng(0x5eedc0de);
  KmerSample sample(k, canonical, std::size_t{1} << 16);
  std::string bases;
  while (bases.size() < (std::size_t{1} << 16) + static_cast<std::size_t>(k))
    bases += "ACGT"[rng() & 3];
  io::SequenceBatch batch;
  batch.push_back("model", "", bases);
  sample.add_batch(batch);
  return sample.keys();
}

}  // namespace

KmerSample::KmerSample(int k, bool canonical, std::size_t limit)
    : k_(k), canonical_(canonical), limit_(std::max<std::size_t>(limit, 1)) {}

void KmerSample::add_records(const std::vector<std::string_view>& sequences) {
  std::size_t bases = 0;
  for (const std::string_view sequence : sequences) bases += sequence.size();
  const std::size_t stride = std::max<std::size_t>(1, bases / limit_);
  for (std::size_t r = 0; r < sequences.size() && keys_.size() < limit_; r += stride) {
    if (words_for_k(k_) == 2)
      roll<2>(sequences[r], k_, canonical_, keys_, limit_);
    else
      roll<1>(sequences[r], k_, canonical_, keys_, limit_);
  }
}

void KmerSample::add_batch(const io::SequenceBatch& batch) {
  std::vector<std::string_view> sequences(batch.size());
  for (std::size_t r = 0; r < batch.size(); ++r) sequences[r] = batch.sequence(r);
  add_records(sequences);
}

void KmerSample::add_fastq_text(const char* text, std::size_t n) {
  std::vector<std::string_view> sequences;
  std::size_t line = 0;
  for (std::size_t at = 0; at < n; ++line) {
    const char* end = static_cast<const char*>(std::memchr(text + at, '\n', n - at));
    const std::size_t stop = end == nullptr ? n : static_cast<std::size_t>(end - text);
    std::size_t length = stop - at;
    if (length > 0 && text[at + length - 1] == '\r') --length;
    if (line % 4 == 1) sequences.emplace_back(text + at, length);
    at = stop + 1;
  }
  add_records(sequences);
}

std::vector<KeyRange> split_key_space(std::vector<KmerKey> sample, int k, bool canonical,
                                      std::size_t parts) {
  if (parts == 0) throw Error("internal: a k-mer key space split into 0 parts");
  std::vector<KeyRange> ranges(parts);
  if (parts == 1) return ranges;
  if (sample.size() < kSmallestSample) sample = model_sample(k, canonical);
  std::sort(sample.begin(), sample.end());
  // Part p ends where part p + 1 begins: at the sample's p-th quantile.
  for (std::size_t p = 0; p + 1 < parts; ++p) {
    const KmerKey cut = sample[sample.size() * (p + 1) / parts];
    ranges[p].to = cut;
    ranges[p].to_end = false;
    ranges[p + 1].from = cut;
  }
  return ranges;
}

}  // namespace seqfuse::kmer
