#include "../vendor.cuh"
#include "gelu.hpp"
#include "launch.cuh"
#include "nn_math.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

template <class Out>
static __global__ void bias_gelu_kernel(const float* in, const float* bias, std::size_t n,
                                        std::size_t cols, Out* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = from_float<Out>(gelu_erf(in[i] + bias[i % cols]));
}

template <class Out>
void launch_bias_gelu(const float* in, const float* bias, std::size_t rows, std::size_t cols,
                      Out* out, gpuStream_t stream) {
  const std::size_t n = rows * cols;
  bias_gelu_kernel<Out><<<blocks_for(n, kThreads), kThreads, 0, stream>>>(in, bias, n, cols, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status bias_gelu(const float* in, const float* bias, std::size_t rows, std::size_t cols, void* out,
                 NnType out_type, Stream& stream) {
  if (rows == 0) return Status::kSuccess;
  if (cols == 0) return Status::kInvalidSize;
  if (!in || !bias || !out) return Status::kNullBuffer;
  const gpuStream_t s = native_stream(stream);
  switch (out_type) {
    case NnType::f32:
      launch_bias_gelu(in, bias, rows, cols, static_cast<float*>(out), s);
      break;
    case NnType::bf16:
      launch_bias_gelu(in, bias, rows, cols, static_cast<bf16_t*>(out), s);
      break;
    case NnType::f16:
      launch_bias_gelu(in, bias, rows, cols, static_cast<f16_t*>(out), s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
