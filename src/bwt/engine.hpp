// The boundary between a bwt run and the engines that sort suffixes. The
// run packs the reference and writes the files (bwt_run.cpp); an engine
// turns a text of 2-bit codes into its suffix array. The CPU engine is
// libdivsufsort's; the GPU engine's is prefix doubling over device radix
// sorts (gpu/bwt/suffix_sort.cu). Both give the same array.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace seqfuse::bwt {

class BwtEngine {
 public:
  virtual ~BwtEngine() = default;

  // "cpu", "gpu:0": for the summary line.
  [[nodiscard]] virtual std::string name() const = 0;

  // Bytes of host memory the engine needs beside the text to sort a text of
  // `length` codes: the run checks it against -m before any work.
  [[nodiscard]] virtual std::uint64_t host_bytes(std::uint64_t length) const = 0;

  // Why this engine cannot sort a text of `length` codes (too large for its
  // device, say); empty when it can.
  [[nodiscard]] virtual std::string cannot_sort(std::uint64_t /*length*/) const { return {}; }

  // The suffix array of text$ ('$' implicit and smallest): text.size() + 1
  // entries, the first text.size() (the '$' suffix). Codes are 0..3.
  [[nodiscard]] virtual std::vector<std::uint64_t> suffix_array(
      std::span<const std::uint8_t> text) = 0;
};

[[nodiscard]] std::unique_ptr<BwtEngine> make_cpu_bwt_engine();
// The GPU engine on device `index` (gpu_engine.cpp); throws in a build
// without a GPU backend (gpu_absent.cpp).
[[nodiscard]] std::unique_ptr<BwtEngine> make_gpu_bwt_engine(int index);

}  // namespace seqfuse::bwt
