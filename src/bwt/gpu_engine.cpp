// The GPU engine behind BwtEngine: the forward strand goes to the device
// packed four codes a byte, the suffixes are sorted there (gpu/bwt: one
// pass when the text fits, buckets otherwise), and only the rows (BWT
// codes, SA samples) come back. With several workers (--device gpu:0,1,...)
// the buckets are shared between them (gpu_multi_sort.hpp).
// Compiled only in builds with a GPU backend (gpu_absent.cpp otherwise).
#include <string>
#include <utility>
#include <vector>

#include "bwt/engine.hpp"
#include "bwt/gpu_multi_sort.hpp"
#include "core/env_count.hpp"
#include "core/error.hpp"
#include "core/gpu_status.hpp"
#include "core/host_memory.hpp"
#include "gpu/bwt/multi_sort.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::bwt {
namespace {

static_assert(gpu::bwt::kSentinelCode == kSentinelCode, "the device writes the host's '$' code");

// SEQFUSE_BWT_BUCKET_SUFFIXES=N forces the bucketed sort with buckets of at
// most N suffixes (to compare it with the one-pass sort on small texts).
std::uint64_t forced_bucket_suffixes() {
  return env_count("SEQFUSE_BWT_BUCKET_SUFFIXES", "a positive integer").value_or(0);
}

class GpuBwtEngine final : public BwtEngine {
 public:
  // The run chose the device on a thread of its own: this thread makes it
  // current too. The staging blocks the rows come out through take 50 to
  // 80 ms to pin: that starts now, in the background, beside the sort.
  explicit GpuBwtEngine(std::vector<int> devices)
      : devices_(std::move(devices)), index_(devices_.front()) {
    gpu::use_device(index_);
    gpu::prepare_staged_copies();
  }

  // "gpu:0", or "gpu:0,1" once several workers have shared the sort.
  [[nodiscard]] std::string name() const override {
    std::string name = "gpu:";
    for (std::size_t w = 0; w < (shared_ ? devices_.size() : 1); ++w)
      name += (w > 0 ? "," : "") + std::to_string(devices_[w]);
    return name;
  }

  // The forward strand packed (n / 4 bytes) goes to the device; only the
  // rows come back: 1 byte a row and 8 a sample.
  [[nodiscard]] std::uint64_t host_bytes(const IndexText& text,
                                         std::uint32_t interval) const override {
    const std::uint64_t rows = text.length() + 1;
    return text.forward_length() / 4 + 2 + rows + 8 * (rows / interval + 1);
  }

  // The text must stay on the device beside at least one small bucket.
  [[nodiscard]] std::string cannot_sort(std::uint64_t length) const override {
    const std::uint64_t need = gpu::bwt::bucketed_min_device_bytes(length);
    const std::uint64_t free = gpu::free_device_memory();
    if (need > free)
      return "the GPU engine needs at least " + memory_size(need) + " of device memory for " +
             std::to_string(length) + " bases; " + memory_size(free) + " are free";
    return {};
  }

  [[nodiscard]] SortedSuffixes sort(IndexText& text, std::uint32_t interval,
                                    unsigned threads) override {
    SortedSuffixes sorted;
    sorted.interval = interval;
    sorted.bwt.resize(text.length() + 1);
    sorted.samples.resize(text.length() / interval + 1);
    const gpu::bwt::SortOutput out{sorted.bwt, sorted.samples, interval, threads};
    gpu::bwt::SortPlan plan;
    plan.bucket_suffixes = forced_bucket_suffixes();
    const std::span<const char> pac = text.pac();
    const gpu::bwt::PackedCodes packed{
        {reinterpret_cast<const std::uint8_t*>(pac.data()), pac.size()},
        text.forward_length(),
        text.both_strands()};
    // Several workers share the buckets of a text that the one-pass sort
    // cannot take on the first device; a smaller one sorts faster there in
    // one pass than in buckets on several (400 Mbp on two H200s: 1.62 s
    // against 1.81 s, whole runs). A forced bucket size shares them anyway.
    if (devices_.size() > 1 && text.length() > 0 &&
        (plan.bucket_suffixes != 0 || !gpu::bwt::one_pass_fits(text.length()))) {
      sort_on_devices(packed, out, devices_, plan.bucket_suffixes);
      shared_ = true;
    } else {
      if (devices_.size() > 1) gpu::trace("bwt: the text fits one pass on " + name() + " alone");
      require_gpu_success(gpu::bwt::sort_suffixes(packed, out, plan), "GPU suffix sort");
    }
    sorted.primary = sentinel_row(sorted.bwt);
    return sorted;
  }

 private:
  std::vector<int> devices_;  // one entry a worker; the first holds the ranks
  int index_;
  bool shared_ = false;  // whether the last sort ran on every worker
};

}  // namespace

std::unique_ptr<BwtEngine> make_gpu_bwt_engine(const std::vector<int>& devices) {
  if (devices.empty()) throw Error("internal: a GPU engine with no device");
  return std::make_unique<GpuBwtEngine>(devices);
}

std::string gpu_bwt_devices_refusal(const std::vector<int>& devices) {
  return multi_sort_refusal(devices);
}

}  // namespace seqfuse::bwt
