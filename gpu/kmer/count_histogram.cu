#include <algorithm>
#include <cstdint>
#include <map>

#include "gpu/vendor.cuh"
#include "gpu/kmer/count_histogram.hpp"

namespace seqfuse::gpu {
namespace {

// Most k-mers have small counts: those are binned in shared memory first,
// so the many singletons do not all hit one global address.
constexpr std::uint32_t kSharedBins = 1024;
// Counts below this get a global bin; the few above are listed one by one
// (at most total / kGlobalBins of them).
constexpr std::uint32_t kGlobalBins = 1u << 16;
constexpr int kThreads = 256;
constexpr unsigned kBlocks = 1024;

__global__ void bin_counts(const std::uint32_t* __restrict__ counts, std::size_t n,
                           unsigned long long* __restrict__ bins, std::uint32_t* __restrict__ large,
                           unsigned long long* __restrict__ large_count) {
  __shared__ unsigned shared[kSharedBins];
  for (unsigned i = threadIdx.x; i < kSharedBins; i += blockDim.x) shared[i] = 0;
  __syncthreads();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::uint32_t c = counts[i];
    if (c < kSharedBins)
      atomicAdd(&shared[c], 1u);
    else if (c < kGlobalBins)
      atomicAdd(&bins[c], 1ULL);
    else
      large[atomicAdd(large_count, 1ULL)] = c;
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < kSharedBins; i += blockDim.x)
    if (shared[i] != 0) atomicAdd(&bins[i], static_cast<unsigned long long>(shared[i]));
}

}  // namespace

Status count_frequencies(const std::uint32_t* counts, std::size_t n, std::uint64_t total,
                         std::vector<std::pair<std::uint32_t, std::uint64_t>>& out,
                         Stream& stream) {
  out.clear();
  if (n == 0) return Status::kSuccess;
  if (counts == nullptr) return Status::kNullBuffer;
  auto s = static_cast<gpuStream_t>(stream.native());
  const std::size_t large_room = total / kGlobalBins + 1;
  DeviceBuffer bins(kGlobalBins * sizeof(unsigned long long));
  DeviceBuffer large(large_room * sizeof(std::uint32_t));
  DeviceBuffer large_count(sizeof(unsigned long long));
  GPU_CHECK(gpuMemsetAsync(bins.data(), 0, bins.size(), s));
  GPU_CHECK(gpuMemsetAsync(large_count.data(), 0, large_count.size(), s));
  const unsigned blocks =
      static_cast<unsigned>(std::min<std::size_t>(kBlocks, (n + kThreads - 1) / kThreads));
  bin_counts<<<blocks, kThreads, 0, s>>>(counts, n, bins.as<unsigned long long>(),
                                         large.as<std::uint32_t>(),
                                         large_count.as<unsigned long long>());
  GPU_CHECK_LAUNCH();
  std::vector<unsigned long long> host_bins(kGlobalBins);
  unsigned long long listed = 0;
  GPU_CHECK(gpuMemcpyAsync(host_bins.data(), bins.data(), bins.size(), gpuMemcpyDeviceToHost, s));
  GPU_CHECK(gpuMemcpyAsync(&listed, large_count.data(), sizeof listed, gpuMemcpyDeviceToHost, s));
  GPU_CHECK(gpuStreamSynchronize(s));
  if (listed > large_room) return Status::kInvalidArgument;  // counts summed past `total`
  std::vector<std::uint32_t> host_large(listed);
  GPU_CHECK(gpuMemcpyAsync(host_large.data(), large.data(), listed * sizeof(std::uint32_t),
                           gpuMemcpyDeviceToHost, s));
  GPU_CHECK(gpuStreamSynchronize(s));
  for (std::uint32_t c = 0; c < kGlobalBins; ++c)
    if (host_bins[c] != 0) out.emplace_back(c, host_bins[c]);
  std::map<std::uint32_t, std::uint64_t> sparse;
  for (std::uint32_t c : host_large) ++sparse[c];
  for (const auto& entry : sparse) out.push_back(entry);
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu
