// The text a bwt run indexes, handed to an engine in the form it sorts,
// each form made on first use: the CPU engine sorts 2-bit codes, one a byte
// (both strands built on the host: 2 bytes a base); the GPU engine takes
// the forward strand packed four codes a byte (bwa's .pac, which the run
// writes anyway: a quarter of a byte a base) and builds both strands on the
// device, so an eighth of the bytes crosses PCIe and the host never holds
// the two strands.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "bwt/reference_pack.hpp"
#include "bwt/sorted_suffixes.hpp"

namespace seqfuse::bwt {

class IndexText {
 public:
  // both_strands: the forward strand followed by its reverse complement,
  // as bwa indexes it; otherwise the forward strand alone (raw format).
  IndexText(const PackedReference& reference, bool both_strands, unsigned threads)
      : reference_(reference), both_strands_(both_strands), threads_(threads) {}

  // Codes in the text (2n with both strands, n without).
  [[nodiscard]] std::uint64_t length() const noexcept {
    return (both_strands_ ? 2 : 1) * forward_length();
  }
  [[nodiscard]] std::uint64_t forward_length() const noexcept { return reference_.bases.size(); }
  [[nodiscard]] bool both_strands() const noexcept { return both_strands_; }

  // The text as codes 0..3, one a byte (the forward strand alone is read
  // where it lies; both strands are built on the first call).
  [[nodiscard]] std::span<const std::uint8_t> codes();
  // bwa's .pac bytes of the forward strand (reference_pack.hpp's
  // pac_bytes), made on the first call; the first ceil(n / 4) hold the codes.
  [[nodiscard]] std::span<const char> pac();

 private:
  const PackedReference& reference_;
  bool both_strands_;
  unsigned threads_;
  std::optional<RowVector<std::uint8_t>> strands_;
  std::optional<RowVector<char>> pac_;
};

}  // namespace seqfuse::bwt
