#include "gpu/vendor.cuh"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/nn_types.hpp"
#include "gpu/nn/pooling.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 128;

// grid: (sequences, column blocks); one thread per (sequence, column), so
// consecutive threads read consecutive floats of a row.
static __global__ void pool_kernel(bool mean, const float* states, const std::int32_t* offsets,
                                   std::size_t hidden, float* out) {
  const std::size_t s = blockIdx.x;
  const std::size_t c = static_cast<std::size_t>(blockIdx.y) * blockDim.x + threadIdx.x;
  if (c >= hidden) return;
  const auto begin = static_cast<std::size_t>(offsets[s]);
  const auto end = static_cast<std::size_t>(offsets[s + 1]);
  if (!mean) {
    out[s * hidden + c] = states[begin * hidden + c];
    return;
  }
  const std::size_t residues = end - begin >= 2 ? end - begin - 2 : 0;
  double sum = 0;
  for (std::size_t t = begin + 1; t <= begin + residues; ++t) sum += states[t * hidden + c];
  out[s * hidden + c] = residues ? static_cast<float>(sum / static_cast<double>(residues))
                                 : bits_float(0x7fc00000u);  // NaN, as torch's empty mean
}

void launch_pool(bool mean, const float* states, const std::int32_t* offsets, std::size_t sequences,
                 std::size_t hidden, float* out, gpuStream_t stream) {
  const dim3 grid(static_cast<unsigned>(sequences), blocks_for(hidden, kThreads));
  pool_kernel<<<grid, kThreads, 0, stream>>>(mean, states, offsets, hidden, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status pool_sequences(PoolKind kind, const float* states, const std::int32_t* offsets,
                      std::size_t sequences, std::size_t tokens, std::size_t hidden, float* out,
                      Stream& stream) {
  if (sequences == 0) return Status::kSuccess;
  if (hidden == 0 || sequences > 0x7fffffffu || hidden > 65535u * kThreads)
    return Status::kInvalidSize;
  if (!states || !offsets || !out) return Status::kNullBuffer;
  const gpuStream_t s = native_stream(stream);
  if (kind == PoolKind::none) {
    GPU_CHECK(
        gpuMemcpyAsync(out, states, tokens * hidden * sizeof(float), gpuMemcpyDeviceToDevice, s));
    return Status::kSuccess;
  }
  launch_pool(kind == PoolKind::mean, states, offsets, sequences, hidden, out, s);
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
