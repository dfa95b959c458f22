#include "../vendor.cuh"
#include "launch.cuh"
#include "layer_norm.hpp"
#include "nn_math.hpp"

namespace seqfuse::gpu::nn {
namespace {

// One block per row; a power of two for the tree reduction below.
constexpr unsigned kThreads = 256;

// Sum of every thread's `value` over the block, returned to all threads.
// `scratch` holds kThreads doubles; the trailing barrier lets it be reused.
__device__ double block_sum(double value, double* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  const double total = scratch[0];
  __syncthreads();
  return total;
}

template <class Out>
static __global__ void __launch_bounds__(kThreads)
    add_layer_norm_kernel(float* residual, const float* delta, std::size_t hidden,
                          const float* weight, const float* bias, double eps, Out* out) {
  __shared__ double scratch[kThreads];
  const std::size_t row = blockIdx.x;
  float* x = residual + row * hidden;
  // Each thread touches the same columns in every pass, so its own writes
  // to x are what it reads back.
  double sum = 0;
  for (std::size_t c = threadIdx.x; c < hidden; c += kThreads) {
    float v = x[c];
    if (delta) {
      v += delta[row * hidden + c];
      x[c] = v;
    }
    sum += v;
  }
  const double mean = block_sum(sum, scratch) / static_cast<double>(hidden);
  double squares = 0;
  for (std::size_t c = threadIdx.x; c < hidden; c += kThreads) {
    const double d = x[c] - mean;
    squares += d * d;
  }
  const double variance = block_sum(squares, scratch) / static_cast<double>(hidden);
  const double inverse_std = 1.0 / sqrt(variance + eps);
  Out* y = out + row * hidden;
  for (std::size_t c = threadIdx.x; c < hidden; c += kThreads)
    y[c] = from_float<Out>(layer_norm_value(x[c], mean, inverse_std, weight[c], bias[c]));
}

template <class Out>
void launch_add_layer_norm(float* residual, const float* delta, std::size_t rows,
                           std::size_t hidden, const float* weight, const float* bias, double eps,
                           Out* out, gpuStream_t stream) {
  add_layer_norm_kernel<Out><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
      residual, delta, hidden, weight, bias, eps, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status add_layer_norm(float* residual, const float* delta, std::size_t rows, std::size_t hidden,
                      const float* weight, const float* bias, double eps, void* out,
                      NnType out_type, Stream& stream) {
  if (rows == 0) return Status::kSuccess;
  if (hidden == 0 || rows > 0x7fffffffu) return Status::kInvalidSize;
  if (!residual || !weight || !bias || !out) return Status::kNullBuffer;
  if (!(eps >= 0)) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  switch (out_type) {
    case NnType::f32:
      launch_add_layer_norm(residual, delta, rows, hidden, weight, bias, eps,
                            static_cast<float*>(out), s);
      break;
    case NnType::bf16:
      launch_add_layer_norm(residual, delta, rows, hidden, weight, bias, eps,
                            static_cast<bf16_t*>(out), s);
      break;
    case NnType::f16:
      launch_add_layer_norm(residual, delta, rows, hidden, weight, bias, eps,
                            static_cast<f16_t*>(out), s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
