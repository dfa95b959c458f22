// Several GPU workers split one k-mer count by key range (--device
// gpu:0,1,...): every worker reads all the input but keeps only the k-mers of
// its own contiguous range of the k-mer order. No k-mer is counted on two
// workers, so their runs never hold the same key (the merge only puts them
// side by side) and their histograms add up. The ranges come from quantiles
// of a sample of the input's own k-mers: canonical k-mers crowd the low end
// of the key space (7/16 of them start with A), so equal slices of it would
// leave the last worker little to do.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "io/batch.hpp"

namespace seqfuse::kmer {

// A k-mer as a key: w[0] first (the words of Kmer<W>), w[1] = 0 when k <= 32.
using KmerKey = std::array<std::uint64_t, 2>;

// The keys from `from` on, up to `to` (not included) unless `to_end`.
struct KeyRange {
  KmerKey from{};
  KmerKey to{};
  bool to_end = true;

  [[nodiscard]] bool whole() const noexcept { return to_end && from == KmerKey{}; }
  [[nodiscard]] bool contains(const KmerKey& key) const noexcept {
    return !(key < from) && (to_end || key < to);
  }
  bool operator==(const KeyRange&) const = default;
};

// K-mers (canonical or forward, as the count takes them) of the first piece
// of the input: all those of every n-th record, n chosen so that the piece
// gives about `limit`. The quantiles need tens of thousands, not every k-mer,
// and the sample is taken while the workers wait for their ranges: rolling
// every base of a 32 MiB chunk would take ~50 ms, these ~1 ms.
class KmerSample {
 public:
  KmerSample(int k, bool canonical, std::size_t limit = std::size_t{1} << 16);

  // Every record of the batch.
  void add_batch(const io::SequenceBatch& batch);
  // FASTQ text as io::FastqChunkReader cuts it: the second line of every
  // four. Malformed text gives a poorer sample, never an error (the engines
  // report it).
  void add_fastq_text(const char* text, std::size_t n);

  [[nodiscard]] const std::vector<KmerKey>& keys() const noexcept { return keys_; }

 private:
  void add_records(const std::vector<std::string_view>& sequences);

  int k_;
  bool canonical_;
  std::size_t limit_;
  std::vector<KmerKey> keys_;
};

// `parts` ranges, in key order, that together hold every k-mer once: cut at
// the quantiles of `sample` (sorted here). A sample too small to say much
// (under 4,096 k-mers: an input of short or few reads) is replaced by the
// k-mers of random bases from a fixed seed. A range may be empty when one
// key fills more than a part of the sample.
[[nodiscard]] std::vector<KeyRange> split_key_space(std::vector<KmerKey> sample, int k,
                                                    bool canonical, std::size_t parts);

}  // namespace seqfuse::kmer
