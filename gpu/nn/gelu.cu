#include "gpu/vendor.cuh"
#include "gpu/nn/gelu.hpp"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/nn_math.hpp"
#include "gpu/nn/pairs.cuh"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

// Two adjacent columns per thread (cols is even: ESM-2's intermediate
// sizes are multiples of 64), a block row per matrix row: no index
// division. Each thread reads its elements before writing them, so `in`
// may be `out`.
template <class In, class Out>
static __global__ void __launch_bounds__(kThreads)
    bias_gelu_kernel(const In* in, const float* bias, unsigned cols, Out* out) {
  const unsigned c = 2 * (blockIdx.y * kThreads + threadIdx.x);
  if (c >= cols) return;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * cols + c;
  float x0, x1;
  load_two(in + i, x0, x1);
  store_two(out + i, gelu_erf(x0 + bias[c]), gelu_erf(x1 + bias[c + 1]));
}

template <class In, class Out>
void launch_bias_gelu(const void* in, const float* bias, std::size_t rows, std::size_t cols,
                      void* out, gpuStream_t stream) {
  const dim3 grid(static_cast<unsigned>(rows), blocks_for(cols / 2, kThreads));
  bias_gelu_kernel<In, Out><<<grid, kThreads, 0, stream>>>(
      static_cast<const In*>(in), bias, static_cast<unsigned>(cols), static_cast<Out*>(out));
  GPU_CHECK_LAUNCH();
}

// The input in fp32 or already in the output type.
template <class Out>
void launch_for_input(const void* in, NnType in_type, const float* bias, std::size_t rows,
                      std::size_t cols, void* out, gpuStream_t stream) {
  if (in_type == NnType::f32)
    launch_bias_gelu<float, Out>(in, bias, rows, cols, out, stream);
  else
    launch_bias_gelu<Out, Out>(in, bias, rows, cols, out, stream);
}

}  // namespace

Status bias_gelu(const void* in, NnType in_type, const float* bias, std::size_t rows,
                 std::size_t cols, void* out, NnType out_type, Stream& stream) {
  if (rows == 0) return Status::kSuccess;
  if (cols == 0 || cols % 2 != 0 || cols > 0xffffffffu || rows > 0x7fffffffu)
    return Status::kInvalidSize;
  if (!in || !bias || !out) return Status::kNullBuffer;
  if (in_type != NnType::f32 && in_type != out_type) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  switch (out_type) {
    case NnType::f32:
      launch_for_input<float>(in, in_type, bias, rows, cols, out, s);
      break;
    case NnType::bf16:
      launch_for_input<bf16_t>(in, in_type, bias, rows, cols, out, s);
      break;
    case NnType::f16:
      launch_for_input<f16_t>(in, in_type, bias, rows, cols, out, s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
