// Embedding lookups: ESM-2's with its token-dropout scale, BERT's with
// absolute positions. Plain C++ (src/ calls
// it); the kernel is in embedding.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

// out[t] = float(word_embeddings[ids[t]] x scale[t]) for `tokens` rows of
// `hidden` floats. The caller gives each token its sequence's token-dropout
// scale, 0 for a dropped (<mask>) token; the product is taken in double, as
// the CPU engine does. Ids must be below `vocab` (the caller checks).
[[nodiscard]] Status embed_tokens(const std::int32_t* ids, const double* scale, std::size_t tokens,
                                  const float* word_embeddings, std::size_t hidden, float* out,
                                  Stream& stream);

// BERT's embedding sum before its LayerNorm: out[t] = (word_embeddings[ids[t]]
// + token_type_row) + position_embeddings[positions[t]], fp32
// (nn_math.hpp: bert_embedding_value). Ids and positions must be inside
// their tables (the caller checks).
[[nodiscard]] Status embed_tokens_absolute(const std::int32_t* ids, const std::int32_t* positions,
                                           std::size_t tokens, const float* word_embeddings,
                                           const float* position_embeddings,
                                           const float* token_type_row, std::size_t hidden,
                                           float* out, Stream& stream);

}  // namespace seqfuse::gpu::nn
