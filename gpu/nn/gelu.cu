#include "../vendor.cuh"
#include "gelu.hpp"
#include "launch.cuh"
#include "mma.cuh"
#include "nn_math.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

// Two adjacent elements as floats, and back: one 32-bit access for 16-bit
// types (two for fp32), and one packed conversion where the target has it.
template <class T>
__device__ __forceinline__ void load_two(const T* p, float& a, float& b) {
  a = to_float(p[0]);
  b = to_float(p[1]);
}
template <class T>
__device__ __forceinline__ void store_two(T* p, float a, float b) {
  p[0] = from_float<T>(a);
  p[1] = from_float<T>(b);
}
#ifdef SEQFUSE_HAVE_MMA
template <>
__device__ __forceinline__ void load_two<bf16_t>(const bf16_t* p, float& a, float& b) {
  const std::uint32_t w = *reinterpret_cast<const std::uint32_t*>(p);
  a = bits_float(w << 16);
  b = bits_float(w & 0xffff0000u);
}
template <>
__device__ __forceinline__ void store_two<bf16_t>(bf16_t* p, float a, float b) {
  *reinterpret_cast<std::uint32_t*>(p) = pack_pair<bf16_t>(a, b);
}
template <>
__device__ __forceinline__ void store_two<f16_t>(f16_t* p, float a, float b) {
  *reinterpret_cast<std::uint32_t*>(p) = pack_pair<f16_t>(a, b);
}
#endif

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
