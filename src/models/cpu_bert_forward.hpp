// The CPU engine for BERT protein models (ProtBERT): transformers' BertModel
// in fp32. Embeddings (word + token type 0 + absolute position) through a
// LayerNorm, then post-LayerNorm blocks: attention with biases, its dense
// and the residual, LayerNorm; the exact-erf GELU MLP, its residual,
// LayerNorm. No final norm: the last block's output is the last hidden
// state. The pieces (GEMMs, softmax, LayerNorm, GELU) are the ESM-2
// engine's (cpu_blocks.hpp, cpu_kernels.hpp); attention runs per sequence
// and head over that sequence's own tokens, so a batch needs no padding
// (what the attention mask does in a padded HF batch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/bert_weights.hpp"
#include "models/cpu_blocks.hpp"
#include "models/engine.hpp"

namespace seqfuse::models {

class CpuBertEngine final : public EmbeddingEngine {
 public:
  // `model` must outlive the engine.
  CpuBertEngine(const BertModel& model, unsigned threads);

  [[nodiscard]] std::string name() const override { return "cpu"; }
  void reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) override;
  void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout& readout,
             std::span<Embedding> out) override;

 private:
  void embed_tokens(std::span<const std::span<const std::int32_t>> sequences);
  void attention(std::size_t layer);
  void finish_layer(std::size_t layer);

  const BertModel& model_;
  unsigned threads_;
  std::size_t hidden_, heads_, intermediate_size_;
  std::vector<AttentionScratch> scratch_;  // one per worker

  std::vector<std::size_t> offsets_;  // sequence s: rows [offsets_[s], offsets_[s + 1])
  std::size_t tokens_ = 0;
  std::vector<float> hidden_states_;  // [tokens][hidden], each block's output
  std::vector<float> sum_;            // [tokens][hidden], a block's output + residual, pre-norm
  std::vector<float> qkv_;            // [tokens][3 hidden]
  std::vector<float> context_;        // [tokens][hidden]
  std::vector<float> intermediate_;   // [tokens][intermediate]
};

}  // namespace seqfuse::models
