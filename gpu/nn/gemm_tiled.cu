// A portable tiled GEMM for y = x w^T + bias: 64 x 64 output tiles, 16-deep
// k slices staged in shared memory, 4 x 4 outputs per thread, fp32
// accumulation. No vendor intrinsics, no warp-size assumption.
#include "gpu/vendor.cuh"
#include "gpu/nn/gemm.hpp"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/nn_math.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr int kTile = 64;   // rows and columns of the output tile
constexpr int kSlice = 16;  // k per shared-memory stage
constexpr int kPerThread = 4;
constexpr int kThreads = (kTile / kPerThread) * (kTile / kPerThread);  // 256

template <class T, class Y, class B>
static __global__ void __launch_bounds__(kThreads)
    linear_tiled_kernel(const T* x, const T* w, std::size_t rows, std::size_t in, std::size_t out,
                        const B* bias, bool accumulate, Activation activation, Y* y) {
  // [k][row] so the inner loop reads consecutive rows; +1 against bank conflicts.
  __shared__ float x_slice[kSlice][kTile + 1];
  __shared__ float w_slice[kSlice][kTile + 1];
  const std::size_t row0 = static_cast<std::size_t>(blockIdx.x) * kTile;
  const std::size_t col0 = static_cast<std::size_t>(blockIdx.y) * kTile;
  const int tid = static_cast<int>(threadIdx.x);
  const int ty = tid / (kTile / kPerThread), tx = tid % (kTile / kPerThread);

  float acc[kPerThread][kPerThread] = {};
  for (std::size_t k0 = 0; k0 < in; k0 += kSlice) {
    for (int i = tid; i < kTile * kSlice; i += kThreads) {
      const int r = i / kSlice, k = i % kSlice;
      const std::size_t kk = k0 + static_cast<std::size_t>(k);
      const std::size_t xr = row0 + static_cast<std::size_t>(r);
      const std::size_t wc = col0 + static_cast<std::size_t>(r);
      x_slice[k][r] = (xr < rows && kk < in) ? to_float(x[xr * in + kk]) : 0.0f;
      w_slice[k][r] = (wc < out && kk < in) ? to_float(w[wc * in + kk]) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kSlice; ++k) {
      float a[kPerThread], b[kPerThread];
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        a[i] = x_slice[k][ty * kPerThread + i];
        b[i] = w_slice[k][tx * kPerThread + i];
      }
#pragma unroll
      for (int i = 0; i < kPerThread; ++i)
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const std::size_t r = row0 + static_cast<std::size_t>(ty * kPerThread + i);
    if (r >= rows) continue;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const std::size_t c = col0 + static_cast<std::size_t>(tx * kPerThread + j);
      if (c >= out) continue;
      float sum = acc[i][j] + (bias ? to_float(bias[c]) : 0.0f);
      if (activation == Activation::gelu_tanh)
        sum = gelu_tanh(sum);
      else if (activation == Activation::relu)
        sum = fmaxf(sum, 0.0f);
      y[r * out + c] = from_float<Y>(accumulate ? to_float(y[r * out + c]) + sum : sum);
    }
  }
}

template <class T, class Y, class B>
void launch_linear_tiled(const Linear& job, gpuStream_t stream) {
  const dim3 grid(blocks_for(job.rows, kTile), blocks_for(job.out, kTile));
  linear_tiled_kernel<T, Y, B><<<grid, kThreads, 0, stream>>>(
      static_cast<const T*>(job.x), static_cast<const T*>(job.w), job.rows, job.in, job.out,
      static_cast<const B*>(job.bias), job.accumulate, job.activation, static_cast<Y*>(job.y));
  GPU_CHECK_LAUNCH();
}

// y and the bias each in fp32 or in the operands' type.
template <class T>
void launch_for_output(const Linear& job, gpuStream_t stream) {
  const bool y32 = job.y_type == NnType::f32, bias32 = job.bias_type == NnType::f32;
  if (y32 && bias32)
    launch_linear_tiled<T, float, float>(job, stream);
  else if (y32)
    launch_linear_tiled<T, float, T>(job, stream);
  else if (bias32)
    launch_linear_tiled<T, T, float>(job, stream);
  else
    launch_linear_tiled<T, T, T>(job, stream);
}

}  // namespace

Status linear_tiled(const Linear& job, Stream& stream) {
  if (job.rows == 0 || job.out == 0) return Status::kSuccess;
  if (job.in == 0 || job.out > 65535u * kTile) return Status::kInvalidSize;
  if (!job.x || !job.w || !job.y) return Status::kNullBuffer;
  if (!can_implement(job)) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  switch (job.type) {
    case NnType::f32:
      launch_for_output<float>(job, s);
      break;
    case NnType::bf16:
      launch_for_output<bf16_t>(job, s);
      break;
    case NnType::f16:
      launch_for_output<f16_t>(job, s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
