// A block of counted k-mers as the merge hands them to the outputs (database,
// histogram, dump): ascending, unique, words_for_k(k) words per k-mer (w[0]
// first) and one count each. The pointers stay valid only during the call
// that receives the block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/primitives/kmer_code.hpp"

namespace seqfuse::kmer {

struct RecordBlock {
  int k = 0;
  const std::uint64_t* words = nullptr;
  const std::uint32_t* counts = nullptr;
  std::size_t size = 0;

  [[nodiscard]] int words_per_kmer() const noexcept { return words_for_k(k); }
  [[nodiscard]] const std::uint64_t* kmer(std::size_t i) const noexcept {
    return words + i * static_cast<std::size_t>(words_per_kmer());
  }
};

}  // namespace seqfuse::kmer
