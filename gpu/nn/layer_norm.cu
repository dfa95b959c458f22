#include "gpu/nn/launch.cuh"
#include "gpu/nn/layer_norm.hpp"
#include "gpu/nn/nn_math.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::nn {
namespace {

// One warp per row: ESM-2 rows are 320 to 2,560 floats, a few dozen per
// lane, so the statistics need only register sums and a shuffle tree (a
// block per row spent most of its time in barriers).
constexpr unsigned kThreads = 256;

// Sum of every lane's `value` over the warp, returned to all lanes.
__device__ double warp_sum(double value) {
  for (int mask = warp_size() / 2; mask > 0; mask /= 2) value += warp_shuffle_xor(value, mask);
  return value;
}

// kWriteBack (post-LN blocks): the normed row replaces the residual row and
// `out` (may be null) gets a copy in its type.
template <class Out, bool kWriteBack = false>
static __global__ void __launch_bounds__(kThreads)
    add_layer_norm_kernel(float* residual, const float* delta, std::size_t rows, std::size_t hidden,
                          const float* weight, const float* bias, double eps, Out* out) {
  const unsigned lanes = static_cast<unsigned>(warp_size());
  const std::size_t row =
      static_cast<std::size_t>(blockIdx.x) * (kThreads / lanes) + threadIdx.x / lanes;
  if (row >= rows) return;  // the whole warp leaves together
  const unsigned lane = threadIdx.x % lanes;
  float* x = residual + row * hidden;
  // Each lane touches the same columns in every pass, so its own writes
  // to x are what it reads back.
  double sum = 0;
  for (std::size_t c = lane; c < hidden; c += lanes) {
    float v = x[c];
    if (delta) {
      v += delta[row * hidden + c];
      x[c] = v;
    }
    sum += v;
  }
  const double mean = warp_sum(sum) / static_cast<double>(hidden);
  double squares = 0;
  for (std::size_t c = lane; c < hidden; c += lanes) {
    const double d = x[c] - mean;
    squares += d * d;
  }
  const double variance = warp_sum(squares) / static_cast<double>(hidden);
  const double inverse_std = 1.0 / sqrt(variance + eps);
  if constexpr (kWriteBack) {
    // Each lane rewrites only the columns it read, after both statistics.
    Out* y = out ? out + row * hidden : nullptr;
    for (std::size_t c = lane; c < hidden; c += lanes) {
      const float value = layer_norm_value(x[c], mean, inverse_std, weight[c], bias[c]);
      x[c] = value;
      if (y) y[c] = from_float<Out>(value);
    }
  } else {
    Out* y = out + row * hidden;
    for (std::size_t c = lane; c < hidden; c += lanes)
      y[c] = from_float<Out>(layer_norm_value(x[c], mean, inverse_std, weight[c], bias[c]));
  }
}

template <class Out, bool kWriteBack = false>
void launch_add_layer_norm(float* residual, const float* delta, std::size_t rows,
                           std::size_t hidden, const float* weight, const float* bias, double eps,
                           Out* out, gpuStream_t stream) {
  // Rows per block: kThreads / warp size (host side: ask the device once).
  const unsigned rows_per_block = kThreads / static_cast<unsigned>(current_warp_size());
  add_layer_norm_kernel<Out, kWriteBack><<<blocks_for(rows, rows_per_block), kThreads, 0, stream>>>(
      residual, delta, rows, hidden, weight, bias, eps, out);
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

Status layer_norm_in_place(float* residual, std::size_t rows, std::size_t hidden,
                           const float* weight, const float* bias, double eps, void* copy,
                           NnType copy_type, Stream& stream) {
  if (rows == 0) return Status::kSuccess;
  if (hidden == 0 || rows > 0x7fffffffu) return Status::kInvalidSize;
  if (!residual || !weight || !bias) return Status::kNullBuffer;
  if (!(eps >= 0)) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  switch (copy ? copy_type : NnType::f32) {
    case NnType::f32:
      launch_add_layer_norm<float, true>(residual, nullptr, rows, hidden, weight, bias, eps,
                                         static_cast<float*>(copy), s);
      break;
    case NnType::bf16:
      launch_add_layer_norm<bf16_t, true>(residual, nullptr, rows, hidden, weight, bias, eps,
                                          static_cast<bf16_t*>(copy), s);
      break;
    case NnType::f16:
      launch_add_layer_norm<f16_t, true>(residual, nullptr, rows, hidden, weight, bias, eps,
                                         static_cast<f16_t*>(copy), s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
