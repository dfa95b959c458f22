#include "gpu/nn/embedding.hpp"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/nn_math.hpp"
#include "gpu/vendor.cuh"

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

// BERT: word + token type 0 + absolute position (nn_math.hpp's order).
static __global__ void embed_absolute_kernel(const std::int32_t* ids, const std::int32_t* positions,
                                             std::size_t tokens, const float* words,
                                             const float* position_table, const float* type_row,
                                             std::size_t hidden, float* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= tokens * hidden) return;
  const std::size_t t = i / hidden, c = i % hidden;
  out[i] =
      bert_embedding_value(words[static_cast<std::size_t>(ids[t]) * hidden + c], type_row[c],
                           position_table[static_cast<std::size_t>(positions[t]) * hidden + c]);
}

}  // namespace

Status embed_tokens_absolute(const std::int32_t* ids, const std::int32_t* positions,
                             std::size_t tokens, const float* word_embeddings,
                             const float* position_embeddings, const float* token_type_row,
                             std::size_t hidden, float* out, Stream& stream) {
  if (tokens == 0) return Status::kSuccess;
  if (hidden == 0) return Status::kInvalidSize;
  if (!ids || !positions || !word_embeddings || !position_embeddings || !token_type_row || !out)
    return Status::kNullBuffer;
  embed_absolute_kernel<<<blocks_for(tokens * hidden, kThreads), kThreads, 0,
                          native_stream(stream)>>>(
      ids, positions, tokens, word_embeddings, position_embeddings, token_type_row, hidden, out);
  GPU_CHECK_LAUNCH();
  return Status::kSuccess;
}

Status embed_tokens(const std::int32_t* ids, const double* scale, std::size_t tokens,
                    const float* word_embeddings, std::size_t hidden, float* out, Stream& stream) {
  if (tokens == 0) return Status::kSuccess;
  if (hidden == 0) return Status::kInvalidSize;
  if (!ids || !scale || !word_embeddings || !out) return Status::kNullBuffer;
  launch_embed_tokens(ids, scale, tokens, word_embeddings, hidden, out, native_stream(stream));
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
