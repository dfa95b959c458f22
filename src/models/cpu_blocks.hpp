// Row-block pieces of the CPU engines' forward passes, shared by every
// family (cpu_forward.cpp for ESM-2, cpu_bert_forward.cpp for BERT): the
// linear layers through OpenBLAS (called single-threaded on row blocks that
// seqfuse's threads share out), bias rows, the QKV projection, LayerNorm,
// softmax attention of one head over one sequence's own tokens, and a
// layer's attention over every (sequence, head) of a batch.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace seqfuse::models {

// Rows per parallel chunk for row-local work (the sgemm calls included):
// fixed, whatever the thread count, so that -t 1 and -t 16 make the same
// OpenBLAS calls and write the same bytes. OpenBLAS may round a row
// differently by the call's row count (its small-matrix kernels on AVX-512
// machines): with blocks of rows / threads, -t 1 and -t 2 differed in the
// last digits on an AMD EPYC (rerun_identical, run 31). 128 rows keep each
// call efficient and a 16k-token batch in 128 chunks for the threads.
inline constexpr std::size_t kRowChunk = 128;

// Row-major out[rows x n] += in[rows x k] . weight[n x k]^T, one OpenBLAS call.
void add_linear(const float* in, std::size_t ld_in, std::size_t rows, std::size_t k,
                const float* weight, std::size_t n, float* out, std::size_t ld_out);

// Starts out[r] at the bias for rows [0, rows), ready for add_linear.
void set_rows_to_bias(const std::vector<float>& bias, std::size_t rows, float* out,
                      std::size_t ld_out);

void add_bias_to_rows(const std::vector<float>& bias, std::size_t rows, float* out,
                      std::size_t ld_out);

// qkv [rows][3 hidden] = x [rows][hidden] . W^T + b for the query, key and
// value weights ([hidden x hidden]) and biases of `w` (an ESM-2 or BERT
// layer: the fields are named alike).
template <class Layer>
void qkv_rows(const Layer& w, const float* x, std::size_t rows, std::size_t hidden, float* qkv) {
  const std::vector<float>* weights[] = {&w.query_weight, &w.key_weight, &w.value_weight};
  const std::vector<float>* biases[] = {&w.query_bias, &w.key_bias, &w.value_bias};
  for (std::size_t part = 0; part < 3; ++part) {
    set_rows_to_bias(*biases[part], rows, qkv + part * hidden, 3 * hidden);
    add_linear(x, hidden, rows, hidden, weights[part]->data(), hidden, qkv + part * hidden,
               3 * hidden);
  }
}

// torch.nn.LayerNorm: biased variance; statistics in double (the GPU kernel's
// arithmetic, gpu/nn/nn_math.hpp). `out` may be `in` (each row's statistics
// are taken before any of it is written).
void layer_norm_rows(const float* in, std::size_t rows, std::size_t hidden,
                     const std::vector<float>& weight, const std::vector<float>& bias, double eps,
                     float* out);

// Query rows per attention block: a [block x tokens] score matrix per worker.
inline constexpr std::size_t kQueryBlock = 256;

// out[i] = softmax(query[i] . key^T [+ bias[j - i]]) . value for `tokens`
// rows of one head: query and key [tokens][d] contiguous (the query already
// scaled, if the model scales), value and out rows of d floats at strides
// ld_value and ld_out. `bias_center`, when given (T5), points at the bias of
// offset 0 (key == query) in a row of per-offset biases long enough for
// +-(tokens - 1) (t5_position_bias). `scores` is the caller's scratch.
void attend_head(const float* query, const float* key, const float* value, std::size_t ld_value,
                 std::size_t tokens, std::size_t d, float* out, std::size_t ld_out,
                 std::vector<float>& scores_buffer, const float* bias_center = nullptr);

// Per-worker buffers of attend_sequences: one (sequence, head)'s query and
// key rows and its score block.
struct AttentionScratch {
  std::vector<float> query, key, scores;
};

// One layer's self-attention over a batch of sequences stacked as rows.
struct SequenceAttention {
  // The query scaled by head_dim^-0.5 (ESM-2, BERT; T5 sets 1).
  SequenceAttention(const std::vector<float>& qkv_rows, std::vector<float>& context_rows,
                    std::size_t hidden_size, std::size_t head_count)
      : qkv(qkv_rows.data()),
        context(context_rows.data()),
        hidden(hidden_size),
        heads(head_count),
        query_scale(1.0f / std::sqrt(static_cast<float>(hidden_size / head_count))) {}

  const float* qkv;           // [tokens][3 hidden]: query, key, value, biases added
  float* context;             // [tokens][hidden]: each head's output in its columns
  std::size_t hidden, heads;  // head_dim = hidden / heads
  float query_scale;          // applied to the query before any rotation
  // Rotary positions (ESM-2), rotate-half form: cos and sin [position][head_dim],
  // positions counted from each sequence's first token. Null: none (BERT).
  const float* cos = nullptr;
  const float* sin = nullptr;
};

// context = softmax(Q K^T) V for every (sequence, head), each sequence
// attending over its own tokens only (rows [offsets[s], offsets[s + 1])):
// Q and K gathered into `scratch` (scaled, rotated), V read in place. Shared
// out on `threads` threads, scratch[w] for worker w (threads entries).
void attend_sequences(const SequenceAttention& job, std::span<const std::size_t> offsets,
                      unsigned threads, std::vector<AttentionScratch>& scratch);

}  // namespace seqfuse::models
