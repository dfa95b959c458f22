#include <algorithm>

#include "gpu/vendor.cuh"
#include "gpu/nn/gated_gelu.hpp"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/nn_math.hpp"
#include "gpu/nn/pairs.cuh"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

// Two adjacent elements per thread (pairs.cuh: one access per side for
// 16-bit types), a grid-stride loop over the pairs: an elementwise op with
// no shape of its own.
template <class T>
static __global__ void __launch_bounds__(kThreads)
    gated_gelu_kernel(T* gelu_side, const T* linear_side, std::size_t pairs) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  for (std::size_t p = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; p < pairs;
       p += stride) {
    float g0, g1, l0, l1;
    load_two(gelu_side + 2 * p, g0, g1);
    load_two(linear_side + 2 * p, l0, l1);
    store_two(gelu_side + 2 * p, gelu_tanh(g0) * l0, gelu_tanh(g1) * l1);
  }
}

template <class T>
void launch_gated_gelu(void* gelu_side, const void* linear_side, std::size_t count,
                       gpuStream_t stream) {
  const std::size_t pairs = count / 2;
  // Enough blocks to fill any device; the loop takes the rest.
  const unsigned blocks = static_cast<unsigned>(
      std::min<std::size_t>((pairs + kThreads - 1) / kThreads, std::size_t{1} << 16));
  gated_gelu_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(gelu_side),
                                                        static_cast<const T*>(linear_side), pairs);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status gated_gelu(void* gelu_side, const void* linear_side, std::size_t count, NnType type,
                  Stream& stream) {
  if (count == 0) return Status::kSuccess;
  if (count % 2 != 0) return Status::kInvalidSize;
  if (!gelu_side || !linear_side) return Status::kNullBuffer;
  const gpuStream_t s = native_stream(stream);
  switch (type) {
    case NnType::f32:
      launch_gated_gelu<float>(gelu_side, linear_side, count, s);
      break;
    case NnType::bf16:
      launch_gated_gelu<bf16_t>(gelu_side, linear_side, count, s);
      break;
    case NnType::f16:
      launch_gated_gelu<f16_t>(gelu_side, linear_side, count, s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
