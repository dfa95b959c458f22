// Row-block pieces of the T5 CPU engine that the shared blocks
// (cpu_blocks.hpp) do not have: T5's RMS LayerNorm, and attention of one
// head with a relative position bias added to its (unscaled) scores.
#pragma once

#include <cstddef>
#include <vector>

namespace seqfuse::models {

// T5LayerNorm: x * rsqrt(mean(x^2) + eps) * weight; no mean subtraction, no
// bias; statistics in double. `out` may be `in`.
void rms_norm_rows(const float* in, std::size_t rows, std::size_t hidden,
                   const std::vector<float>& weight, double eps, float* out);

// out[i] = softmax(query[i] . key^T + bias[j - i]) . value for `tokens` rows
// of one head, with no 1/sqrt(d) (T5 folds it into its weights). query and
// key [tokens][d] contiguous; value and out rows of d floats at strides
// ld_value and ld_out; `bias_center` points at the bias of offset 0 (key ==
// query) in a row of per-offset biases long enough for +-(tokens - 1)
// (t5_position_bias). `scores` is the caller's scratch.
void attend_head_biased(const float* query, const float* key, const float* value,
                        std::size_t ld_value, std::size_t tokens, std::size_t d,
                        const float* bias_center, float* out, std::size_t ld_out,
                        std::vector<float>& scores);

}  // namespace seqfuse::models
