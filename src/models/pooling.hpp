// Readouts of one sequence's hidden states, shared by the engines' host code
// and the tests: mean over residues, the BOS vector, or every token.
#pragma once

#include <cstddef>

#include "models/engine.hpp"

namespace seqfuse::models {

// Rows a readout gives for a sequence of `tokens` tokens (BOS and EOS counted).
[[nodiscard]] std::size_t pooled_rows(Pooling pooling, std::size_t tokens) noexcept;

// `states`: [tokens x hidden] row-major, token 0 the BOS. Writes
// pooled_rows(pooling, tokens) x hidden floats to `out`. The mean skips BOS
// and EOS and sums in double; with no residue it is NaN, as torch's mean.
void pool_hidden_states(Pooling pooling, const float* states, std::size_t tokens,
                        std::size_t hidden, float* out);

}  // namespace seqfuse::models
