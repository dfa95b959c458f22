// The CPU engine behind BwtEngine: libdivsufsort's 64-bit suffix sort, then
// the rows from the full array on threads.
#include <utility>

#include "bwt/engine.hpp"
#include "bwt/suffix_array.hpp"

namespace seqfuse::bwt {
namespace {

class CpuBwtEngine final : public BwtEngine {
 public:
  [[nodiscard]] std::string name() const override { return "cpu"; }

  // Both strands as codes (1 byte each, where the text has both), the
  // suffix array (8 bytes a suffix: libdivsufsort sorts in place in it) and
  // the BWT codes built from it (1 byte); the samples are the array itself
  // at interval 1, else a copy of every interval-th entry.
  [[nodiscard]] std::uint64_t host_bytes(const IndexText& text,
                                         std::uint32_t interval) const override {
    const std::uint64_t rows = text.length() + 1;
    return (text.both_strands() ? text.length() : 0) + 9 * rows +
           (interval > 1 ? 8 * (rows / interval + 1) : 0);
  }

  [[nodiscard]] SortedSuffixes sort(IndexText& text, std::uint32_t interval,
                                    unsigned threads) override {
    const std::span<const std::uint8_t> codes = text.codes();
    return sorted_from_suffix_array(codes, suffix_array_cpu(codes), interval, threads);
  }
};

}  // namespace

std::unique_ptr<BwtEngine> make_cpu_bwt_engine() {
  return std::make_unique<CpuBwtEngine>();
}

}  // namespace seqfuse::bwt
