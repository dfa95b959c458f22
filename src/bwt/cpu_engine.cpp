// The CPU engine behind BwtEngine: libdivsufsort's 64-bit suffix sort.
#include "bwt/engine.hpp"
#include "bwt/suffix_array.hpp"

namespace seqfuse::bwt {
namespace {

class CpuBwtEngine final : public BwtEngine {
 public:
  [[nodiscard]] std::string name() const override { return "cpu"; }

  // The suffix array, 8 bytes a suffix: libdivsufsort sorts in place in it.
  [[nodiscard]] std::uint64_t host_bytes(std::uint64_t length) const override {
    return 8 * (length + 1);
  }

  [[nodiscard]] std::vector<std::uint64_t> suffix_array(
      std::span<const std::uint8_t> text) override {
    return suffix_array_cpu(text);
  }
};

}  // namespace

std::unique_ptr<BwtEngine> make_cpu_bwt_engine() {
  return std::make_unique<CpuBwtEngine>();
}

}  // namespace seqfuse::bwt
