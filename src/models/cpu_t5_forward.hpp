// The CPU engine for T5 encoders (ProtT5): transformers' T5EncoderModel in
// fp32. The token embedding (no scaling, no positions), then pre-norm
// blocks: RMS norm, attention without 1/sqrt(d) and with block 0's relative
// position bias added to the scores (t5_math.hpp), its output projection and
// the residual; RMS norm, the ReLU or gated-GELU (tanh form) feed-forward,
// its residual. A final RMS norm gives the last hidden state. No biases
// anywhere. GEMMs are cpu_blocks' add_linear (OpenBLAS on row blocks that
// seqfuse's threads share out); attention runs per sequence and head over
// that sequence's own tokens, so a batch needs no padding.
//
// Each sequence arrives as every family's does (engine.hpp): a first
// special token, the residue tokens, </s>. T5 has no leading token: that
// first slot is a placeholder (t5_tokenizer.hpp), left out of attention and
// held at zero, so its row is zero in every hidden state; mean pooling and
// per-token rows skip it as they skip BOS (and --pool bos is refused for
// t5 before any engine runs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/engine.hpp"
#include "models/t5_weights.hpp"

namespace seqfuse::models {

class CpuT5Engine final : public EmbeddingEngine {
 public:
  // `model` must outlive the engine.
  CpuT5Engine(const T5Model& model, unsigned threads);

  [[nodiscard]] std::string name() const override { return "cpu"; }
  void reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) override;
  void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout& readout,
             std::span<Embedding> out) override;

 private:
  struct AttentionScratch {
    std::vector<float> query, key, scores;
  };

  void embed_tokens(std::span<const std::span<const std::int32_t>> sequences);
  void attention(std::size_t layer);
  void attend(std::size_t first_token, std::size_t tokens, std::size_t head,
              AttentionScratch& scratch);
  void feed_forward(std::size_t layer);
  void ensure_position_bias(std::size_t tokens);

  const T5Model& model_;
  unsigned threads_;
  std::size_t hidden_, heads_, head_dim_, inner_, d_ff_;
  bool gated_;
  std::vector<AttentionScratch> scratch_;  // one per worker

  // Relative position bias by offset, [heads][2 bias_tokens_ - 1]
  // (t5_position_bias), grown to the longest sequence seen.
  std::vector<float> position_bias_;
  std::size_t bias_tokens_ = 0;

  std::vector<std::size_t> offsets_;  // sequence s: rows [offsets_[s], offsets_[s + 1])
  std::size_t tokens_ = 0;
  std::vector<float> hidden_states_;  // [tokens][hidden], the residual stream
  std::vector<float> normed_;         // [tokens][hidden], its RMS norm
  std::vector<float> qkv_;            // [tokens][3 inner]
  std::vector<float> context_;        // [tokens][inner]
  std::vector<float> up_;             // [tokens][d_ff]: relu(wi x), or gelu(wi_0 x) * wi_1 x
  std::vector<float> gate_;           // [tokens][d_ff]: wi_1 x (gated only)
};

}  // namespace seqfuse::models
