// Row-block pieces of the CPU engines' forward passes, shared by every
// family (cpu_forward.cpp for ESM-2, cpu_bert_forward.cpp for BERT): the
// linear layers through OpenBLAS (called single-threaded on row blocks that
// seqfuse's threads share out), bias rows, LayerNorm, and softmax attention
// of one head over one sequence's own tokens.
#pragma once

#include <cstddef>
#include <vector>

namespace seqfuse::models {

// Row-major out[rows x n] += in[rows x k] . weight[n x k]^T, one OpenBLAS call.
void add_linear(const float* in, std::size_t ld_in, std::size_t rows, std::size_t k,
                const float* weight, std::size_t n, float* out, std::size_t ld_out);

// Starts out[r] at the bias for rows [0, rows), ready for add_linear.
void set_rows_to_bias(const std::vector<float>& bias, std::size_t rows, float* out,
                      std::size_t ld_out);

void add_bias_to_rows(const std::vector<float>& bias, std::size_t rows, float* out,
                      std::size_t ld_out);

// torch.nn.LayerNorm: biased variance; statistics in double (the GPU kernel's
// arithmetic, gpu/nn/nn_math.hpp). `out` may be `in` (each row's statistics
// are taken before any of it is written).
void layer_norm_rows(const float* in, std::size_t rows, std::size_t hidden,
                     const std::vector<float>& weight, const std::vector<float>& bias, double eps,
                     float* out);

// Query rows per attention block: a [block x tokens] score matrix per worker.
inline constexpr std::size_t kQueryBlock = 256;

// out[i] = softmax(query[i] . key^T) . value for `tokens` rows of one head:
// query and key [tokens][d] contiguous (the query already scaled), value and
// out rows of d floats at strides ld_value and ld_out. `scores` is the
// caller's scratch.
void attend_head(const float* query, const float* key, const float* value, std::size_t ld_value,
                 std::size_t tokens, std::size_t d, float* out, std::size_t ld_out,
                 std::vector<float>& scores);

}  // namespace seqfuse::models
