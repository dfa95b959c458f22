#include "models/cpu_t5_forward.hpp"

#include <cblas.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "gpu/nn/nn_math.hpp"
#include "models/cpu_batch.hpp"
#include "models/cpu_blocks.hpp"
#include "models/cpu_t5_blocks.hpp"
#include "models/t5_math.hpp"

namespace seqfuse::models {

CpuT5Engine::CpuT5Engine(const T5Model& model, unsigned threads)
    : model_(model),
      threads_(std::max(threads, 1u)),
      hidden_(static_cast<std::size_t>(model.config.d_model)),
      heads_(static_cast<std::size_t>(model.config.num_heads)),
      head_dim_(static_cast<std::size_t>(model.config.d_kv)),
      inner_(static_cast<std::size_t>(model.config.inner_dim())),
      d_ff_(static_cast<std::size_t>(model.config.d_ff)),
      gated_(model.config.feed_forward == T5FeedForward::gated_gelu),
      scratch_(threads_) {
  openblas_set_num_threads(1);  // our threads split the work
}

void CpuT5Engine::reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) {
  ensure_position_bias(longest_sequence_tokens);
  hidden_states_.reserve(batch_tokens * hidden_);
  normed_.reserve(batch_tokens * hidden_);
  qkv_.reserve(batch_tokens * 3 * inner_);
  context_.reserve(batch_tokens * inner_);
  up_.reserve(batch_tokens * d_ff_);
  if (gated_) gate_.reserve(batch_tokens * d_ff_);
}

void CpuT5Engine::ensure_position_bias(std::size_t tokens) {
  if (tokens <= bias_tokens_) return;
  const T5Config& c = model_.config;
  position_bias_ =
      t5_position_bias(model_.relative_attention_bias, heads_, c.relative_attention_num_buckets,
                       c.relative_attention_max_distance, tokens);
  bias_tokens_ = tokens;
}

void CpuT5Engine::embed(std::span<const std::span<const std::int32_t>> sequences,
                        const Readout& readout, std::span<Embedding> out) {
  const int num_layers = model_.config.num_layers;
  const std::size_t longest = start_cpu_batch(sequences, readout, num_layers, hidden_,
                                              "(a placeholder) ... </s>", offsets_, out);
  ensure_position_bias(longest);
  tokens_ = offsets_.back();
  hidden_states_.resize(tokens_ * hidden_);
  normed_.resize(tokens_ * hidden_);
  qkv_.resize(tokens_ * 3 * inner_);
  context_.resize(tokens_ * inner_);
  up_.resize(tokens_ * d_ff_);
  if (gated_) gate_.resize(tokens_ * d_ff_);

  embed_tokens(sequences);
  capture_hidden_state(sequences, offsets_, hidden_, hidden_states_.data(), readout, 0, out);
  for (int layer = 0; layer < num_layers; ++layer) {
    attention(static_cast<std::size_t>(layer));
    feed_forward(static_cast<std::size_t>(layer));
    // transformers' hidden_states: each block's output, except that the
    // last entry is the final norm's output (below), not the last block's.
    if (layer + 1 < num_layers)
      capture_hidden_state(sequences, offsets_, hidden_, hidden_states_.data(), readout, layer + 1,
                           out);
  }
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    float* x = hidden_states_.data() + begin * hidden_;
    rms_norm_rows(x, end - begin, hidden_, model_.final_norm_weight,
                  model_.config.layer_norm_epsilon, x);
  });
  capture_hidden_state(sequences, offsets_, hidden_, hidden_states_.data(), readout, num_layers,
                       out);
}

void CpuT5Engine::embed_tokens(std::span<const std::span<const std::int32_t>> sequences) {
  const auto vocab = static_cast<std::size_t>(model_.config.vocab_size);
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const auto& tokens = sequences[s];
    float* rows = hidden_states_.data() + offsets_[s] * hidden_;
    // The placeholder's row: zero, and zero it stays (no biases; the RMS
    // norm of zero is zero; attention leaves it out).
    std::fill(rows, rows + hidden_, 0.0f);
    for (std::size_t t = 1; t < tokens.size(); ++t) {
      const std::int32_t id = tokens[t];
      if (id < 0 || static_cast<std::size_t>(id) >= vocab)
        throw Error("internal: token id " + std::to_string(id) + " outside the vocabulary");
      const float* row = model_.token_embeddings.data() + static_cast<std::size_t>(id) * hidden_;
      std::copy(row, row + hidden_, rows + t * hidden_);
    }
  }
}

void CpuT5Engine::attention(std::size_t layer) {
  const T5LayerWeights& w = model_.layers[layer];
  const std::size_t ld_qkv = 3 * inner_;
  const double eps = model_.config.layer_norm_epsilon;
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    const std::size_t rows = end - begin;
    float* normed = normed_.data() + begin * hidden_;
    rms_norm_rows(hidden_states_.data() + begin * hidden_, rows, hidden_, w.attention_norm_weight,
                  eps, normed);
    float* qkv = qkv_.data() + begin * ld_qkv;
    const std::vector<float>* weights[] = {&w.query_weight, &w.key_weight, &w.value_weight};
    for (std::size_t r = 0; r < rows; ++r) std::fill_n(qkv + r * ld_qkv, ld_qkv, 0.0f);
    for (std::size_t part = 0; part < 3; ++part)
      add_linear(normed, hidden_, rows, hidden_, weights[part]->data(), inner_, qkv + part * inner_,
                 ld_qkv);
  });
  const std::size_t sequences = offsets_.size() - 1;
  parallel_chunks(sequences * heads_, 1, threads_,
                  [&](unsigned worker, std::size_t begin, std::size_t end) {
                    for (std::size_t item = begin; item < end; ++item) {
                      const std::size_t s = item / heads_;
                      // Row offsets_[s] is the placeholder: attention is over the rest.
                      attend(offsets_[s] + 1, offsets_[s + 1] - offsets_[s] - 1, item % heads_,
                             scratch_[worker]);
                    }
                  });
  for (std::size_t s = 0; s + 1 < offsets_.size(); ++s)
    std::fill_n(context_.data() + offsets_[s] * inner_, inner_, 0.0f);
  // x += o(context), row-local.
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    add_linear(context_.data() + begin * inner_, inner_, end - begin, inner_,
               w.attention_output_weight.data(), hidden_, hidden_states_.data() + begin * hidden_,
               hidden_);
  });
}

void CpuT5Engine::attend(std::size_t first_token, std::size_t tokens, std::size_t head,
                         AttentionScratch& scratch) {
  const std::size_t d = head_dim_, ld_qkv = 3 * inner_;
  scratch.query.resize(tokens * d);
  scratch.key.resize(tokens * d);
  for (std::size_t i = 0; i < tokens; ++i) {
    const float* q = qkv_.data() + (first_token + i) * ld_qkv + head * d;
    const float* k = q + inner_;
    std::copy(q, q + d, scratch.query.data() + i * d);
    std::copy(k, k + d, scratch.key.data() + i * d);
  }
  const float* value = qkv_.data() + first_token * ld_qkv + 2 * inner_ + head * d;
  float* out = context_.data() + first_token * inner_ + head * d;
  const float* bias_center =
      position_bias_.data() + head * (2 * bias_tokens_ - 1) + (bias_tokens_ - 1);
  // No 1/sqrt(d): T5 folds it into its weights.
  attend_head(scratch.query.data(), scratch.key.data(), value, ld_qkv, tokens, d, out, inner_,
              scratch.scores, bias_center);
}

void CpuT5Engine::feed_forward(std::size_t layer) {
  const T5LayerWeights& w = model_.layers[layer];
  const double eps = model_.config.layer_norm_epsilon;
  // Row-local: x += wo(act(wi(norm(x)))).
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    const std::size_t rows = end - begin;
    float* x = hidden_states_.data() + begin * hidden_;
    float* normed = normed_.data() + begin * hidden_;
    rms_norm_rows(x, rows, hidden_, w.ffn_norm_weight, eps, normed);
    float* up = up_.data() + begin * d_ff_;
    std::fill_n(up, rows * d_ff_, 0.0f);
    add_linear(normed, hidden_, rows, hidden_, w.input_weight.data(), d_ff_, up, d_ff_);
    if (gated_) {
      float* gate = gate_.data() + begin * d_ff_;
      std::fill_n(gate, rows * d_ff_, 0.0f);
      add_linear(normed, hidden_, rows, hidden_, w.gate_linear_weight.data(), d_ff_, gate, d_ff_);
      for (std::size_t i = 0; i < rows * d_ff_; ++i) up[i] = gpu::nn::gelu_tanh(up[i]) * gate[i];
    } else {
      for (std::size_t i = 0; i < rows * d_ff_; ++i) up[i] = std::max(up[i], 0.0f);
    }
    add_linear(up, d_ff_, rows, d_ff_, w.output_weight.data(), hidden_, x, hidden_);
  });
}

}  // namespace seqfuse::models
