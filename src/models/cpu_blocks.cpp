#include "models/cpu_blocks.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "gpu/nn/nn_math.hpp"
#include "models/cpu_kernels.hpp"

namespace seqfuse::models {

// Row-major out[rows x n] += in[rows x k] . weight[n x k]^T, one OpenBLAS call.
void add_linear(const float* in, std::size_t ld_in, std::size_t rows, std::size_t k,
                const float* weight, std::size_t n, float* out, std::size_t ld_out) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(n),
              static_cast<int>(k), 1.0f, in, static_cast<int>(ld_in), weight, static_cast<int>(k),
              1.0f, out, static_cast<int>(ld_out));
}

// Starts out[r] at the bias for rows [0, rows), ready for add_linear.
void set_rows_to_bias(const std::vector<float>& bias, std::size_t rows, float* out,
                      std::size_t ld_out) {
  for (std::size_t r = 0; r < rows; ++r) std::copy(bias.begin(), bias.end(), out + r * ld_out);
}

void add_bias_to_rows(const std::vector<float>& bias, std::size_t rows, float* out,
                      std::size_t ld_out) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < bias.size(); ++c) out[r * ld_out + c] += bias[c];
}

// torch.nn.LayerNorm: biased variance; statistics in double (the GPU kernel's
// arithmetic, gpu/nn/nn_math.hpp).
void layer_norm_rows(const float* in, std::size_t rows, std::size_t hidden,
                     const std::vector<float>& weight, const std::vector<float>& bias, double eps,
                     float* out) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* x = in + r * hidden;
    double mean = 0;
    for (std::size_t c = 0; c < hidden; ++c) mean += x[c];
    mean /= static_cast<double>(hidden);
    double variance = 0;
    for (std::size_t c = 0; c < hidden; ++c) variance += (x[c] - mean) * (x[c] - mean);
    variance /= static_cast<double>(hidden);
    const double scale = 1.0 / std::sqrt(variance + eps);
    float* y = out + r * hidden;
    for (std::size_t c = 0; c < hidden; ++c)
      y[c] = gpu::nn::layer_norm_value(x[c], mean, scale, weight[c], bias[c]);
  }
}

void attend_head(const float* query, const float* key, const float* value, std::size_t ld_value,
                 std::size_t tokens, std::size_t d, float* out, std::size_t ld_out,
                 std::vector<float>& scores_buffer, const float* bias_center) {
  // In blocks of query rows, so the score block stays small for long sequences.
  for (std::size_t row = 0; row < tokens; row += kQueryBlock) {
    const std::size_t rows = std::min(kQueryBlock, tokens - row);
    scores_buffer.resize(rows * tokens);
    float* scores = scores_buffer.data();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows),
                static_cast<int>(tokens), static_cast<int>(d), 1.0f, query + row * d,
                static_cast<int>(d), key, static_cast<int>(d), 0.0f, scores,
                static_cast<int>(tokens));
    if (bias_center)
      for (std::size_t r = 0; r < rows; ++r) {
        // Key j of query i = row + r has offset j - i: the biases from -i on.
        const float* bias = bias_center - static_cast<std::ptrdiff_t>(row + r);
        float* s = scores + r * tokens;
        for (std::size_t j = 0; j < tokens; ++j) s[j] += bias[j];
      }
    softmax_rows(scores, rows, tokens);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(d), static_cast<int>(tokens), 1.0f, scores,
                static_cast<int>(tokens), value, static_cast<int>(ld_value), 0.0f,
                out + row * ld_out, static_cast<int>(ld_out));
  }
}

namespace {

// One (sequence, head) of attend_sequences: the sequence's `tokens` rows
// from `first_token`.
void attend_sequence_head(const SequenceAttention& job, std::size_t first_token, std::size_t tokens,
                          std::size_t head, AttentionScratch& scratch) {
  const std::size_t hidden = job.hidden, d = hidden / job.heads, half = d / 2;
  const std::size_t ld_qkv = 3 * hidden;
  const float query_scale = job.query_scale;
  scratch.query.resize(tokens * d);
  scratch.key.resize(tokens * d);
  const float* qkv = job.qkv + first_token * ld_qkv + head * d;
  if (job.cos) {
    // Query scaled first, then both rotated: x cos + rotate_half(x) sin.
    for (std::size_t i = 0; i < tokens; ++i) {
      const float* q = qkv + i * ld_qkv;
      const float* k = q + hidden;
      const float* cos = job.cos + i * d;
      const float* sin = job.sin + i * d;
      float* q_out = scratch.query.data() + i * d;
      float* k_out = scratch.key.data() + i * d;
      for (std::size_t c = 0; c < half; ++c) {
        q_out[c] = (q[c] * query_scale) * cos[c] - (q[c + half] * query_scale) * sin[c];
        k_out[c] = k[c] * cos[c] - k[c + half] * sin[c];
      }
      for (std::size_t c = half; c < d; ++c) {
        q_out[c] = (q[c] * query_scale) * cos[c] + (q[c - half] * query_scale) * sin[c];
        k_out[c] = k[c] * cos[c] + k[c - half] * sin[c];
      }
    }
  } else {
    for (std::size_t i = 0; i < tokens; ++i) {
      const float* q = qkv + i * ld_qkv;
      const float* k = q + hidden;
      for (std::size_t c = 0; c < d; ++c) {
        scratch.query[i * d + c] = q[c] * query_scale;
        scratch.key[i * d + c] = k[c];
      }
    }
  }
  // softmax(Q K^T) V in blocks of query rows. V is read in place; the result
  // goes straight into this head's columns of the context.
  attend_head(scratch.query.data(), scratch.key.data(), qkv + 2 * hidden, ld_qkv, tokens, d,
              job.context + first_token * hidden + head * d, hidden, scratch.scores);
}

}  // namespace

void attend_sequences(const SequenceAttention& job, std::span<const std::size_t> offsets,
                      unsigned threads, std::vector<AttentionScratch>& scratch) {
  const std::size_t sequences = offsets.size() - 1, heads = job.heads;
  parallel_chunks(sequences * heads, 1, threads,
                  [&](unsigned worker, std::size_t begin, std::size_t end) {
                    for (std::size_t item = begin; item < end; ++item) {
                      const std::size_t s = item / heads;
                      attend_sequence_head(job, offsets[s], offsets[s + 1] - offsets[s],
                                           item % heads, scratch[worker]);
                    }
                  });
}

}  // namespace seqfuse::models
