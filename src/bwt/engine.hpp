// The boundary between a bwt run and the engines that sort suffixes. The
// run packs the reference and writes the files (bwt_run.cpp); an engine
// turns the text (index_text.hpp) into its sorted suffixes: the BWT and the
// sampled suffix array (sorted_suffixes.hpp). The CPU engine sorts with
// libdivsufsort; the GPU engine on the device (gpu/bwt), in one pass or in
// buckets. Both give the same rows.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bwt/index_text.hpp"
#include "bwt/sorted_suffixes.hpp"

namespace seqfuse::bwt {

class BwtEngine {
 public:
  virtual ~BwtEngine() = default;

  // "cpu", "gpu:0": for the summary line.
  [[nodiscard]] virtual std::string name() const = 0;

  // Bytes of host memory the engine needs to sort `text`, the form of the
  // text it asks for and its result included: the run checks it against -m
  // before any work.
  [[nodiscard]] virtual std::uint64_t host_bytes(const IndexText& text,
                                                 std::uint32_t interval) const = 0;

  // Why this engine cannot sort a text of `length` codes (too large for its
  // device, say); empty when it can.
  [[nodiscard]] virtual std::string cannot_sort(std::uint64_t /*length*/) const { return {}; }

  // The sorted suffixes of text$ ('$' implicit and smallest, row 0 the '$'
  // suffix), the suffix array sampled every `interval` rows (a power of
  // two); the engine asks `text` for the form it sorts. Host work runs on
  // `threads` threads.
  [[nodiscard]] virtual SortedSuffixes sort(IndexText& text, std::uint32_t interval,
                                            unsigned threads) = 0;
};

[[nodiscard]] std::unique_ptr<BwtEngine> make_cpu_bwt_engine();
// The GPU engine with one worker a device entry (gpu_engine.cpp; repeats
// allowed: gpu:0,0 runs two workers on GPU 0): one entry sorts as before,
// several share the buckets (gpu_multi_sort.hpp). Throws in a build without
// a GPU backend (gpu_absent.cpp).
[[nodiscard]] std::unique_ptr<BwtEngine> make_gpu_bwt_engine(const std::vector<int>& devices);
// Why these devices cannot share one sort (a device that cannot write into
// the first one's memory); empty when they can.
[[nodiscard]] std::string gpu_bwt_devices_refusal(const std::vector<int>& devices);

}  // namespace seqfuse::bwt
