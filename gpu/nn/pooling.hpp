// Readouts of a batch's hidden states on the device: mean over residues,
// the BOS vector, or every token. Plain C++ (src/ calls it); the kernel is
// in pooling.cu. Equal to src/models/pooling.cpp for each sequence.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

enum class PoolKind { mean, bos, none };

// `states`: [tokens][hidden], sequence s at rows [offsets[s], offsets[s + 1])
// (device offsets, sequences + 1 of them), token 0 of each its BOS.
// mean, bos: out[s] gets `hidden` floats; the mean skips BOS and EOS, sums in
// double and is NaN for a sequence without residues. none: out = states,
// all `tokens` rows.
[[nodiscard]] Status pool_sequences(PoolKind kind, const float* states, const std::int32_t* offsets,
                                    std::size_t sequences, std::size_t tokens, std::size_t hidden,
                                    float* out, Stream& stream);

}  // namespace seqfuse::gpu::nn
