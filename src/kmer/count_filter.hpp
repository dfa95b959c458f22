// -L/-U (keep k-mers counted at least / at most so many times), applied to
// one block of counted k-mers: by kmer-count before its dump and database,
// and by `kmer-count dump` reading a database.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kmer/record_block.hpp"

namespace seqfuse::kmer {

class CountFilter {
 public:
  CountFilter(std::uint32_t lower, std::uint32_t upper) : lower_(lower), upper_(upper) {}

  // The block's k-mers whose counts lie in [lower, upper]; the block itself
  // when no filter is set, else a copy valid until the next call.
  [[nodiscard]] RecordBlock apply(const RecordBlock& block) {
    if (lower_ <= 1 && upper_ == UINT32_MAX) return block;
    const std::size_t w = static_cast<std::size_t>(block.words_per_kmer());
    words_.resize(block.size * w);
    counts_.resize(block.size);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < block.size; ++i) {
      if (block.counts[i] < lower_ || block.counts[i] > upper_) continue;
      std::copy(block.kmer(i), block.kmer(i) + w, words_.data() + kept * w);
      counts_[kept++] = block.counts[i];
    }
    return RecordBlock{block.k, words_.data(), counts_.data(), kept};
  }

 private:
  std::uint32_t lower_, upper_;
  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> counts_;
};

}  // namespace seqfuse::kmer
