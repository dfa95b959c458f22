// The GPU engine behind BwtEngine: the suffix array sorted on the device by
// prefix doubling (gpu/bwt/suffix_sort.cu), copied back for the writers.
// Compiled only in builds with a GPU backend (gpu_absent.cpp otherwise).
#include <string>

#include "bwt/engine.hpp"
#include "core/gpu_status.hpp"
#include "core/host_memory.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::bwt {
namespace {

class GpuBwtEngine final : public BwtEngine {
 public:
  explicit GpuBwtEngine(int index) : index_(index) {}

  [[nodiscard]] std::string name() const override { return "gpu:" + std::to_string(index_); }

  // The suffix array comes back to the host: 8 bytes a suffix.
  [[nodiscard]] std::uint64_t host_bytes(std::uint64_t length) const override {
    return 8 * (length + 1);
  }

  [[nodiscard]] std::string cannot_sort(std::uint64_t length) const override {
    if (length + 1 >= (std::uint64_t{1} << 32))
      return "the GPU engine sorts fewer than 2^32 suffixes (buckets are not built yet)";
    const std::uint64_t need = gpu::bwt::suffix_array_device_bytes(length);
    const std::uint64_t free = gpu::free_device_memory();
    if (need > free)
      return "the GPU engine needs " + memory_size(need) + " of device memory for " +
             std::to_string(length + 1) + " suffixes; " + memory_size(free) + " are free";
    return {};
  }

  [[nodiscard]] std::vector<std::uint64_t> suffix_array(
      std::span<const std::uint8_t> text) override {
    std::vector<std::uint64_t> sa(text.size() + 1);
    require_gpu_success(gpu::bwt::suffix_array(text, sa), "GPU suffix sort");
    return sa;
  }

 private:
  int index_;
};

}  // namespace

std::unique_ptr<BwtEngine> make_gpu_bwt_engine(int index) {
  return std::make_unique<GpuBwtEngine>(index);
}

}  // namespace seqfuse::bwt
