#include "models/cpu_forward.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "gpu/nn/nn_math.hpp"
#include "models/cpu_batch.hpp"
#include "models/cpu_blocks.hpp"
#include "models/cpu_kernels.hpp"
#include "models/pooling.hpp"
#include "models/tokenizer.hpp"

namespace seqfuse::models {

CpuEsmEngine::CpuEsmEngine(const EsmModel& model, unsigned threads)
    : model_(model),
      threads_(std::max(threads, 1u)),
      hidden_(static_cast<std::size_t>(model.config.hidden_size)),
      heads_(static_cast<std::size_t>(model.config.num_heads)),
      head_dim_(static_cast<std::size_t>(model.config.head_dim())),
      intermediate_size_(static_cast<std::size_t>(model.config.intermediate_size)),
      scratch_(threads_) {
  // Our threads split the work; OpenBLAS threads on top would oversubscribe.
  openblas_set_num_threads(1);
  for (const EsmLayerWeights& layer : model_.layers) {
    std::size_t index = 0;
    while (index < rotary_.size() && rotary_[index].inv_freq != layer.rotary_inv_freq) ++index;
    if (index == rotary_.size()) rotary_.push_back({layer.rotary_inv_freq, 0, {}, {}});
    layer_rotary_.push_back(index);
  }
}

void CpuEsmEngine::reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) {
  grow_rotary_tables(longest_sequence_tokens);
  residual_.reserve(batch_tokens * hidden_);
  normed_.reserve(batch_tokens * hidden_);
  qkv_.reserve(batch_tokens * 3 * hidden_);
  context_.reserve(batch_tokens * hidden_);
  intermediate_.reserve(batch_tokens * intermediate_size_);
}

void CpuEsmEngine::grow_rotary_tables(std::size_t positions) {
  const std::size_t half = head_dim_ / 2;
  for (RotaryTable& table : rotary_) {
    if (table.positions >= positions) continue;
    table.cos.resize(positions * head_dim_);
    table.sin.resize(positions * head_dim_);
    for (std::size_t p = table.positions; p < positions; ++p) {
      for (std::size_t c = 0; c < head_dim_; ++c) {
        // transformers multiplies position by inv_freq in the model's dtype;
        // double keeps the angle exact to fp32 even at position 1023.
        const double angle = static_cast<double>(p) * static_cast<double>(table.inv_freq[c % half]);
        table.cos[p * head_dim_ + c] = static_cast<float>(std::cos(angle));
        table.sin[p * head_dim_ + c] = static_cast<float>(std::sin(angle));
      }
    }
    table.positions = positions;
  }
}

void CpuEsmEngine::embed(std::span<const std::span<const std::int32_t>> sequences,
                         const Readout& readout, std::span<Embedding> out) {
  const int num_layers = model_.config.num_layers;
  const std::size_t longest =
      start_cpu_batch(sequences, readout, num_layers, hidden_, "<cls> ... <eos>", offsets_, out);
  tokens_ = offsets_.back();
  grow_rotary_tables(longest);
  residual_.resize(tokens_ * hidden_);
  normed_.resize(tokens_ * hidden_);
  qkv_.resize(tokens_ * 3 * hidden_);
  context_.resize(tokens_ * hidden_);
  intermediate_.resize(tokens_ * intermediate_size_);

  embed_tokens(sequences);
  for (int layer = 0; layer < num_layers; ++layer) {
    capture_hidden_state(sequences, offsets_, hidden_, residual_.data(), readout, layer, out);
    attention_block(static_cast<std::size_t>(layer));
    feed_forward_block(static_cast<std::size_t>(layer));
  }
  final_norm();
  capture_hidden_state(sequences, offsets_, hidden_, normed_.data(), readout, num_layers, out);
}

void CpuEsmEngine::embed_tokens(std::span<const std::span<const std::int32_t>> sequences) {
  const EsmConfig& config = model_.config;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const auto& tokens = sequences[s];
    // Token dropout at inference (EsmEmbeddings): <mask> rows are zeroed and
    // the rest scaled by (1 - 0.15 x 0.8) / (1 - the sequence's mask ratio).
    double scale = 1.0;
    if (config.token_dropout && !tokens.empty()) {
      const auto masks = std::count(tokens.begin(), tokens.end(), config.mask_token_id);
      scale = (1.0 - 0.15 * 0.8) /
              (1.0 - static_cast<double>(masks) / static_cast<double>(tokens.size()));
    }
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      const std::int32_t id = tokens[t];
      if (id < 0 || id >= config.vocab_size)
        throw Error("internal: token id " + std::to_string(id) + " outside the vocabulary");
      const float* row = model_.word_embeddings.data() + static_cast<std::size_t>(id) * hidden_;
      float* x = residual_.data() + (offsets_[s] + t) * hidden_;
      const bool dropped = config.token_dropout && id == config.mask_token_id;
      for (std::size_t c = 0; c < hidden_; ++c)
        x[c] = dropped ? 0.0f : static_cast<float>(row[c] * scale);
    }
  }
}

void CpuEsmEngine::attention_block(std::size_t layer) {
  const EsmLayerWeights& w = model_.layers[layer];
  const double eps = model_.config.layer_norm_eps;
  // Pre-norm, then query, key and value into one [tokens][3 hidden] buffer.
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    const std::size_t rows = end - begin;
    float* normed = normed_.data() + begin * hidden_;
    layer_norm_rows(residual_.data() + begin * hidden_, rows, hidden_, w.attention_norm_weight,
                    w.attention_norm_bias, eps, normed);
    qkv_rows(w, normed, rows, hidden_, qkv_.data() + begin * 3 * hidden_);
  });
  // Each (sequence, head) attends over its own tokens only; the query scaled
  // by head_dim^-0.5, then query and key rotated, positions counted from the
  // sequence's BOS.
  const RotaryTable& rotary = rotary_[layer_rotary_[layer]];
  SequenceAttention job(qkv_, context_, hidden_, heads_);
  job.cos = rotary.cos.data();
  job.sin = rotary.sin.data();
  attend_sequences(job, offsets_, threads_, scratch_);
}

void CpuEsmEngine::feed_forward_block(std::size_t layer) {
  const EsmLayerWeights& w = model_.layers[layer];
  const double eps = model_.config.layer_norm_eps;
  // Row-local from here to the end of the layer: attention's dense and
  // residual, the second pre-norm, the GELU MLP and its residual.
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    const std::size_t rows = end - begin;
    float* residual = residual_.data() + begin * hidden_;
    add_bias_to_rows(w.attention_output_bias, rows, residual, hidden_);
    add_linear(context_.data() + begin * hidden_, hidden_, rows, hidden_,
               w.attention_output_weight.data(), hidden_, residual, hidden_);
    float* normed = normed_.data() + begin * hidden_;
    layer_norm_rows(residual, rows, hidden_, w.ffn_norm_weight, w.ffn_norm_bias, eps, normed);
    float* inter = intermediate_.data() + begin * intermediate_size_;
    set_rows_to_bias(w.intermediate_bias, rows, inter, intermediate_size_);
    add_linear(normed, hidden_, rows, hidden_, w.intermediate_weight.data(), intermediate_size_,
               inter, intermediate_size_);
    gelu_in_place(inter, rows * intermediate_size_);
    add_bias_to_rows(w.output_bias, rows, residual, hidden_);
    add_linear(inter, intermediate_size_, rows, intermediate_size_, w.output_weight.data(), hidden_,
               residual, hidden_);
  });
}

void CpuEsmEngine::final_norm() {
  const double eps = model_.config.layer_norm_eps;
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    layer_norm_rows(residual_.data() + begin * hidden_, end - begin, hidden_,
                    model_.final_norm_weight, model_.final_norm_bias, eps,
                    normed_.data() + begin * hidden_);
  });
}

}  // namespace seqfuse::models
