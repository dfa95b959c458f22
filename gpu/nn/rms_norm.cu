#include "gpu/vendor.cuh"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/rms_norm.hpp"
// After vendor.cuh (nn_math.hpp says why).
#include "gpu/nn/nn_math.hpp"
#include "gpu/nn/warp_rows.cuh"

namespace seqfuse::gpu::nn {
namespace {

// One warp per row (warp_rows.cuh): ProtT5-XL rows are 1,024 floats, 32 per
// lane.
constexpr unsigned kThreads = 256;

template <class Out>
static __global__ void __launch_bounds__(kThreads)
    rms_norm_kernel(const float* x, std::size_t rows, std::size_t hidden, const float* weight,
                    double eps, Out* out) {
  const auto [row, lane, lanes] = warp_row<kThreads>();
  if (row >= rows) return;  // the whole warp leaves together
  const float* in = x + row * hidden;
  double squares = 0;
  for (std::size_t c = lane; c < hidden; c += lanes) {
    const double v = in[c];
    squares += v * v;
  }
  const double inverse_rms = 1.0 / sqrt(warp_sum(squares) / static_cast<double>(hidden) + eps);
  // Each lane writes only the columns it read: `out` may be `x` (fp32).
  Out* y = out + row * hidden;
  for (std::size_t c = lane; c < hidden; c += lanes)
    y[c] = from_float<Out>(rms_norm_value(in[c], inverse_rms, weight[c]));
}

template <class Out>
void launch_rms_norm(const float* x, std::size_t rows, std::size_t hidden, const float* weight,
                     double eps, void* out, gpuStream_t stream) {
  const unsigned rows_per_block = kThreads / static_cast<unsigned>(current_warp_size());
  rms_norm_kernel<Out><<<blocks_for(rows, rows_per_block), kThreads, 0, stream>>>(
      x, rows, hidden, weight, eps, static_cast<Out*>(out));
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status rms_norm(const float* x, std::size_t rows, std::size_t hidden, const float* weight,
                double eps, void* out, NnType out_type, Stream& stream) {
  if (rows == 0) return Status::kSuccess;
  if (hidden == 0 || rows > 0x7fffffffu) return Status::kInvalidSize;
  if (!x || !weight || !out) return Status::kNullBuffer;
  if (!(eps >= 0) || (out == x && out_type != NnType::f32)) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  switch (out_type) {
    case NnType::f32:
      launch_rms_norm<float>(x, rows, hidden, weight, eps, out, s);
      break;
    case NnType::bf16:
      launch_rms_norm<bf16_t>(x, rows, hidden, weight, eps, out, s);
      break;
    case NnType::f16:
      launch_rms_norm<f16_t>(x, rows, hidden, weight, eps, out, s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
