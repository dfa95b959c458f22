// T5's arithmetic that the CPU engine and the GPU engine share: the RMS
// LayerNorm value (nn_math.hpp's), and on the host the relative position
// buckets and the per-offset bias table built from them (t5_math.cpp), so a
// GPU engine uploads the same table instead of computing logarithms.
#pragma once

#include <cstddef>
#include <vector>

#include "gpu/nn/nn_math.hpp"

namespace seqfuse::models {

// T5LayerNorm for one value: x * rsqrt(mean(x^2) + eps), rounded to float,
// times the weight. It lives with the kernels' scalar math
// (gpu/nn/nn_math.hpp), which the GPU's RMS norm (gpu/nn/rms_norm.cu) calls.
using gpu::nn::rms_norm_value;

// transformers' T5Attention._relative_position_bucket with bidirectional =
// true, for relative_position = key position - query position: half the
// buckets for keys after the query; in each half, distances below a quarter
// of the buckets exactly, longer ones logarithmically up to max_distance,
// the rest in the last bucket. transformers computes the logarithmic part
// in float (log(n / e) / log(max_distance / e) * (half - e), truncated); this
// takes the same floor in exact integer arithmetic, so no distance sits on
// a rounding edge (with 32 buckets and 128 that is the float result for
// every distance).
[[nodiscard]] int t5_relative_bucket(long relative_position, int num_buckets, int max_distance);

// Bias by offset for a sequence of up to `tokens` tokens: [heads][2 tokens -
// 1], entry (h, j - i + tokens - 1) = table[bucket(j - i)][h], where `table`
// is relative_attention_bias.weight ([num_buckets x heads], row-major).
[[nodiscard]] std::vector<float> t5_position_bias(const std::vector<float>& table,
                                                  std::size_t heads, int num_buckets,
                                                  int max_distance, std::size_t tokens);

}  // namespace seqfuse::models
