// Embedding lookup with ESM-2's token-dropout scale. Plain C++ (src/ calls
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

}  // namespace seqfuse::gpu::nn
