#include <cstdint>

#include "gpu/vendor.cuh"
#include "gpu/primitives/base_code.hpp"
#include "gpu/primitives/encode_bases.hpp"

namespace seqfuse::gpu {
namespace {

// Four bytes per thread per step: 32-bit loads and stores, grid-stride loop.
__global__ void encode_bases_kernel(const unsigned char* __restrict__ ascii,
                                    std::uint8_t* __restrict__ codes, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t words = n / 4;
  const auto* in4 = reinterpret_cast<const std::uint32_t*>(ascii);
  auto* out4 = reinterpret_cast<std::uint32_t*>(codes);
  for (std::size_t w = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words;
       w += stride) {
    std::uint32_t v = in4[w], r = 0;
    for (int b = 0; b < 4; ++b) r |= std::uint32_t{base_code((v >> (8 * b)) & 0xff)} << (8 * b);
    out4[w] = r;
  }
  for (std::size_t i = words * 4 + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride)
    codes[i] = base_code(ascii[i]);
}

void launch_encode_bases(const unsigned char* ascii, std::uint8_t* codes, std::size_t n,
                         gpuStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const std::size_t words = n / 4 + 1;
  const unsigned blocks =
      static_cast<unsigned>(std::min<std::size_t>((words + kThreads - 1) / kThreads, 65535));
  encode_bases_kernel<<<blocks, kThreads, 0, stream>>>(ascii, codes, n);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status encode_bases(const DeviceBuffer& ascii, DeviceBuffer& codes, std::size_t n, Stream& stream) {
  if (n == 0) return Status::kSuccess;
  if (ascii.data() == nullptr || codes.data() == nullptr) return Status::kNullBuffer;
  if (n > ascii.size() || n > codes.size()) return Status::kInvalidSize;
  // Device allocations are at least 256-byte aligned, so the 32-bit view is safe.
  launch_encode_bases(ascii.as<unsigned char>(), codes.as<std::uint8_t>(), n,
                      static_cast<gpuStream_t>(stream.native()));
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu
