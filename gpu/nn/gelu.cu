#include "../vendor.cuh"
#include "gelu.hpp"
#include "launch.cuh"
#include "nn_math.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

// One thread per element; each reads its element before writing it, so
// `in` may be `out`.
template <class In, class Out>
static __global__ void bias_gelu_kernel(const In* in, const float* bias, std::size_t n,
                                        unsigned cols, Out* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned c = static_cast<unsigned>(i % cols);
  out[i] = from_float<Out>(gelu_erf(to_float(in[i]) + bias[c]));
}

template <class In, class Out>
void launch_bias_gelu(const void* in, const float* bias, std::size_t rows, std::size_t cols,
                      void* out, gpuStream_t stream) {
  const std::size_t n = rows * cols;
  bias_gelu_kernel<In, Out><<<blocks_for(n, kThreads), kThreads, 0, stream>>>(
      static_cast<const In*>(in), bias, n, static_cast<unsigned>(cols), static_cast<Out*>(out));
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
  if (cols == 0 || cols > 0xffffffffu) return Status::kInvalidSize;
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
