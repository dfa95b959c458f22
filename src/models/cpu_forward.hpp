// The CPU engine: ESM-2's forward pass in fp32, equal to transformers'
// EsmModel within float rounding. GEMMs go through OpenBLAS (cblas_sgemm),
// called single-threaded on row blocks that seqfuse's own threads share out,
// so -t alone decides how many cores work. Attention runs per sequence and
// head over that sequence's own tokens: a batch costs no padding FLOPs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/cpu_blocks.hpp"
#include "models/engine.hpp"
#include "models/esm_weights.hpp"

namespace seqfuse::models {

class CpuEsmEngine final : public EmbeddingEngine {
 public:
  // `model` must outlive the engine.
  CpuEsmEngine(const EsmModel& model, unsigned threads);

  [[nodiscard]] std::string name() const override { return "cpu"; }
  void reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) override;
  void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout& readout,
             std::span<Embedding> out) override;

 private:
  // cos and sin of position x inv_freq for the rotate-half form:
  // [position][channel], channel c using inv_freq[c mod head_dim/2].
  struct RotaryTable {
    std::vector<float> inv_freq;
    std::size_t positions = 0;
    std::vector<float> cos, sin;
  };
  void grow_rotary_tables(std::size_t positions);
  void embed_tokens(std::span<const std::span<const std::int32_t>> sequences);
  void attention_block(std::size_t layer);
  void feed_forward_block(std::size_t layer);
  void final_norm();

  const EsmModel& model_;
  unsigned threads_;
  std::size_t hidden_, heads_, head_dim_, intermediate_size_;
  std::vector<RotaryTable> rotary_;        // one per distinct inv_freq
  std::vector<std::size_t> layer_rotary_;  // layer -> rotary_ index
  std::vector<AttentionScratch> scratch_;  // one per worker

  // The batch's tokens stacked: sequence s holds rows [offsets_[s], offsets_[s + 1]).
  std::vector<std::size_t> offsets_;
  std::size_t tokens_ = 0;
  std::vector<float> residual_;      // [tokens][hidden], the hidden state between layers
  std::vector<float> normed_;        // [tokens][hidden]
  std::vector<float> qkv_;           // [tokens][3 hidden]: query, key, value
  std::vector<float> context_;       // [tokens][hidden], attention output before its dense
  std::vector<float> intermediate_;  // [tokens][intermediate]
};

}  // namespace seqfuse::models
