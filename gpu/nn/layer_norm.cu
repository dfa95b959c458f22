#include <cstdint>

#include "gpu/nn/launch.cuh"
#include "gpu/nn/layer_norm.hpp"
#include "gpu/nn/nn_math.hpp"
#include "gpu/nn/warp_rows.cuh"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::nn {
namespace {

// One warp per row (warp_rows.cuh): ESM-2 rows are 320 to 2,560 floats, a
// few dozen per lane.
constexpr unsigned kThreads = 256;

// kWriteBack (post-LN blocks): the normed row replaces the residual row and
// `out` (may be null) gets a copy in its type.
template <class Out, bool kWriteBack = false>
static __global__ void __launch_bounds__(kThreads)
    add_layer_norm_kernel(float* residual, const float* delta, std::size_t rows, std::size_t hidden,
                          const float* weight, const float* bias, double eps, Out* out) {
  const auto [row, lane, lanes] = warp_row<kThreads>();
  if (row >= rows) return;  // the whole warp leaves together
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

// Four outputs of one row in a single store (fp32: 16 bytes; 16-bit: 8).
template <class Out>
__device__ __forceinline__ void store4(Out* at, float a, float b, float c, float d) {
  if constexpr (sizeof(Out) == sizeof(float)) {
    *reinterpret_cast<float4*>(at) = make_float4(a, b, c, d);
  } else {
    const auto bits = [](float v) { return std::uint32_t{from_float<Out>(v).bits}; };
    *reinterpret_cast<uint2*>(at) = make_uint2(bits(a) | bits(b) << 16, bits(c) | bits(d) << 16);
  }
}

// The same arithmetic with the row in registers, moved as 16-byte vectors:
// every load of a row is in flight at once. The one-value-per-lane kernel
// above issued one 4-byte load per lane at a time and reached about half of
// HBM's bandwidth (ESM-2 650M, H100: 271 ms of LayerNorm in a 2.4 s forward
// pass against a 126 ms floor; run 34). kVectors float4 per lane cover rows
// of up to 4 x lanes x kVectors floats; hidden must be a multiple of 4 and
// the rows 16-byte aligned (launch_add_layer_norm checks).
template <class Out, bool kWriteBack, int kVectors>
static __global__ void __launch_bounds__(kThreads)
    add_layer_norm_vector_kernel(float* residual, const float* delta, std::size_t rows,
                                 std::size_t hidden, const float* weight, const float* bias,
                                 double eps, Out* out) {
  const auto [row, lane, lanes] = warp_row<kThreads>();
  if (row >= rows) return;  // the whole warp leaves together
  const unsigned vectors = static_cast<unsigned>(hidden / 4);
  auto* x = reinterpret_cast<float4*>(residual + row * hidden);
  const auto* dx = delta ? reinterpret_cast<const float4*>(delta + row * hidden) : nullptr;
  float4 v[kVectors];
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const unsigned i = lane + k * lanes;
    v[k] = i < vectors ? x[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  if (dx) {
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const unsigned i = lane + k * lanes;
      if (i < vectors) {
        const float4 d = dx[i];
        v[k] = make_float4(v[k].x + d.x, v[k].y + d.y, v[k].z + d.z, v[k].w + d.w);
        x[i] = v[k];
      }
    }
  }
  // Lanes past the row hold zeros: they add nothing to the sum.
  double sum = 0;
#pragma unroll
  for (int k = 0; k < kVectors; ++k)
    sum += (static_cast<double>(v[k].x) + v[k].y) + (static_cast<double>(v[k].z) + v[k].w);
  const double mean = warp_sum(sum) / static_cast<double>(hidden);
  double squares = 0;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    if (lane + k * lanes >= vectors) continue;
    const double a = v[k].x - mean, b = v[k].y - mean, c = v[k].z - mean, d = v[k].w - mean;
    squares += (a * a + b * b) + (c * c + d * d);
  }
  const double variance = warp_sum(squares) / static_cast<double>(hidden);
  const double inverse_std = 1.0 / sqrt(variance + eps);
  const auto* w4 = reinterpret_cast<const float4*>(weight);
  const auto* b4 = reinterpret_cast<const float4*>(bias);
  Out* y = out ? out + row * hidden : nullptr;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const unsigned i = lane + k * lanes;
    if (i >= vectors) continue;
    const float4 w = w4[i], b = b4[i];
    const float4 value = make_float4(layer_norm_value(v[k].x, mean, inverse_std, w.x, b.x),
                                     layer_norm_value(v[k].y, mean, inverse_std, w.y, b.y),
                                     layer_norm_value(v[k].z, mean, inverse_std, w.z, b.z),
                                     layer_norm_value(v[k].w, mean, inverse_std, w.w, b.w));
    if constexpr (kWriteBack) x[i] = value;
    if (y) store4(y + 4 * i, value.x, value.y, value.z, value.w);
  }
}

// float4s per lane the vector kernel needs for `hidden` (0: none of its
// instantiations holds such a row).
int vector_layer_norm_width(std::size_t hidden, unsigned lanes) {
  const std::size_t needed = (hidden / 4 + lanes - 1) / lanes;
  for (const int width : {4, 8, 12, 16, 20})
    if (needed <= static_cast<std::size_t>(width)) return width;
  return 0;
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <class Out, bool kWriteBack = false>
void launch_add_layer_norm(float* residual, const float* delta, std::size_t rows,
                           std::size_t hidden, const float* weight, const float* bias, double eps,
                           Out* out, gpuStream_t stream) {
  // Rows per block: kThreads / warp size (host side: ask the device once).
  const unsigned lanes = static_cast<unsigned>(current_warp_size());
  const unsigned rows_per_block = kThreads / lanes;
  const unsigned blocks = blocks_for(rows, rows_per_block);
  // Rows of whole 16-byte vectors (every model's hidden size): the vector
  // kernel; other shapes and alignments take the one-value-per-lane one.
  const int width = vector_layer_norm_width(hidden, lanes);
  const bool vectors = width != 0 && hidden % 4 == 0 && aligned16(residual) &&
                       (!delta || aligned16(delta)) && aligned16(weight) && aligned16(bias) &&
                       reinterpret_cast<std::uintptr_t>(out) % (4 * sizeof(Out)) == 0;
  const auto launch = [&](auto kernel) {
    kernel<<<blocks, kThreads, 0, stream>>>(residual, delta, rows, hidden, weight, bias, eps, out);
  };
  if (!vectors)
    launch(add_layer_norm_kernel<Out, kWriteBack>);
  else if (width == 4)
    launch(add_layer_norm_vector_kernel<Out, kWriteBack, 4>);
  else if (width == 8)
    launch(add_layer_norm_vector_kernel<Out, kWriteBack, 8>);
  else if (width == 12)
    launch(add_layer_norm_vector_kernel<Out, kWriteBack, 12>);
  else if (width == 16)
    launch(add_layer_norm_vector_kernel<Out, kWriteBack, 16>);
  else
    launch(add_layer_norm_vector_kernel<Out, kWriteBack, 20>);
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
