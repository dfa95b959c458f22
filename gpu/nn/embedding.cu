#include "gpu/vendor.cuh"
#include "gpu/nn/embedding.hpp"
#include "gpu/nn/launch.cuh"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

static __global__ void embed_tokens_kernel(const std::int32_t* ids, const double* scale,
                                           std::size_t tokens, const float* table,
                                           std::size_t hidden, float* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= tokens * hidden) return;
  const std::size_t t = i / hidden, c = i % hidden;
  const double s = scale[t];
  const float value = table[static_cast<std::size_t>(ids[t]) * hidden + c];
  out[i] = s == 0.0 ? 0.0f : static_cast<float>(value * s);
}

void launch_embed_tokens(const std::int32_t* ids, const double* scale, std::size_t tokens,
                         const float* table, std::size_t hidden, float* out, gpuStream_t stream) {
  embed_tokens_kernel<<<blocks_for(tokens * hidden, kThreads), kThreads, 0, stream>>>(
      ids, scale, tokens, table, hidden, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status embed_tokens(const std::int32_t* ids, const double* scale, std::size_t tokens,
                    const float* word_embeddings, std::size_t hidden, float* out, Stream& stream) {
  if (tokens == 0) return Status::kSuccess;
  if (hidden == 0) return Status::kInvalidSize;
  if (!ids || !scale || !word_embeddings || !out) return Status::kNullBuffer;
  launch_embed_tokens(ids, scale, tokens, word_embeddings, hidden, out, native_stream(stream));
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
