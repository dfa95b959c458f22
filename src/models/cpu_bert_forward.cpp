#include "models/cpu_bert_forward.hpp"

#include <cblas.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "gpu/nn/nn_math.hpp"
#include "models/cpu_batch.hpp"
#include "models/cpu_blocks.hpp"
#include "models/cpu_kernels.hpp"
#include "models/pooling.hpp"

namespace seqfuse::models {

CpuBertEngine::CpuBertEngine(const BertModel& model, unsigned threads)
    : model_(model),
      threads_(std::max(threads, 1u)),
      hidden_(static_cast<std::size_t>(model.config.hidden_size)),
      heads_(static_cast<std::size_t>(model.config.num_heads)),
      intermediate_size_(static_cast<std::size_t>(model.config.intermediate_size)),
      scratch_(threads_) {
  openblas_set_num_threads(1);  // our threads split the work
}

void CpuBertEngine::reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) {
  if (longest_sequence_tokens > static_cast<std::size_t>(model_.config.max_position_embeddings))
    throw Error("a sequence of " + std::to_string(longest_sequence_tokens) +
                " tokens is longer than the model's position table (max_position_embeddings " +
                std::to_string(model_.config.max_position_embeddings) + ")");
  hidden_states_.reserve(batch_tokens * hidden_);
  sum_.reserve(batch_tokens * hidden_);
  qkv_.reserve(batch_tokens * 3 * hidden_);
  context_.reserve(batch_tokens * hidden_);
  intermediate_.reserve(batch_tokens * intermediate_size_);
}

void CpuBertEngine::embed(std::span<const std::span<const std::int32_t>> sequences,
                          const Readout& readout, std::span<Embedding> out) {
  const int num_layers = model_.config.num_layers;
  const std::size_t longest =
      start_cpu_batch(sequences, readout, num_layers, hidden_, "[CLS] ... [SEP]", offsets_, out);
  reserve(longest, 0);  // checks the position table
  tokens_ = offsets_.back();
  hidden_states_.resize(tokens_ * hidden_);
  sum_.resize(tokens_ * hidden_);
  qkv_.resize(tokens_ * 3 * hidden_);
  context_.resize(tokens_ * hidden_);
  intermediate_.resize(tokens_ * intermediate_size_);

  embed_tokens(sequences);
  capture_hidden_state(sequences, offsets_, hidden_, hidden_states_.data(), readout, 0, out);
  for (int layer = 0; layer < num_layers; ++layer) {
    attention(static_cast<std::size_t>(layer));
    finish_layer(static_cast<std::size_t>(layer));
    capture_hidden_state(sequences, offsets_, hidden_, hidden_states_.data(), readout, layer + 1,
                         out);
  }
}

void CpuBertEngine::embed_tokens(std::span<const std::span<const std::int32_t>> sequences) {
  const BertConfig& config = model_.config;
  const float* type = model_.token_type_embedding.data();
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const auto& tokens = sequences[s];
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      const std::int32_t id = tokens[t];
      if (id < 0 || id >= config.vocab_size)
        throw Error("internal: token id " + std::to_string(id) + " outside the vocabulary");
      const float* word = model_.word_embeddings.data() + static_cast<std::size_t>(id) * hidden_;
      const float* position = model_.position_embeddings.data() + t * hidden_;
      float* x = sum_.data() + (offsets_[s] + t) * hidden_;
      for (std::size_t c = 0; c < hidden_; ++c)
        x[c] = gpu::nn::bert_embedding_value(word[c], type[c], position[c]);
    }
  }
  const double eps = config.layer_norm_eps;
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    layer_norm_rows(sum_.data() + begin * hidden_, end - begin, hidden_,
                    model_.embedding_norm_weight, model_.embedding_norm_bias, eps,
                    hidden_states_.data() + begin * hidden_);
  });
}

void CpuBertEngine::attention(std::size_t layer) {
  const BertLayerWeights& w = model_.layers[layer];
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    qkv_rows(w, hidden_states_.data() + begin * hidden_, end - begin, hidden_,
             qkv_.data() + begin * 3 * hidden_);
  });
  // head_dim^-0.5 on the query (BertSelfAttention scales the scores: the
  // same product, rounded once more); no rotation.
  attend_sequences(SequenceAttention(qkv_, context_, hidden_, heads_), offsets_, threads_,
                   scratch_);
}

void CpuBertEngine::finish_layer(std::size_t layer) {
  const BertLayerWeights& w = model_.layers[layer];
  const double eps = model_.config.layer_norm_eps;
  // Row-local from the attention's dense to the layer's output.
  parallel_chunks(tokens_, kRowChunk, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    const std::size_t rows = end - begin;
    float* x = hidden_states_.data() + begin * hidden_;
    float* sum = sum_.data() + begin * hidden_;
    // LayerNorm(x + dense(context)), into x.
    std::copy(x, x + rows * hidden_, sum);
    add_bias_to_rows(w.attention_output_bias, rows, sum, hidden_);
    add_linear(context_.data() + begin * hidden_, hidden_, rows, hidden_,
               w.attention_output_weight.data(), hidden_, sum, hidden_);
    layer_norm_rows(sum, rows, hidden_, w.attention_norm_weight, w.attention_norm_bias, eps, x);
    // LayerNorm(x + output(gelu(intermediate(x)))), into x.
    float* inter = intermediate_.data() + begin * intermediate_size_;
    set_rows_to_bias(w.intermediate_bias, rows, inter, intermediate_size_);
    add_linear(x, hidden_, rows, hidden_, w.intermediate_weight.data(), intermediate_size_, inter,
               intermediate_size_);
    gelu_in_place(inter, rows * intermediate_size_);
    std::copy(x, x + rows * hidden_, sum);
    add_bias_to_rows(w.output_bias, rows, sum, hidden_);
    add_linear(inter, intermediate_size_, rows, intermediate_size_, w.output_weight.data(), hidden_,
               sum, hidden_);
    layer_norm_rows(sum, rows, hidden_, w.output_norm_weight, w.output_norm_bias, eps, x);
  });
}

}  // namespace seqfuse::models
