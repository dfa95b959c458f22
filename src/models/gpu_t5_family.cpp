// T5 encoders (ProtT5) on the GPU engine's shell (gpu_model_engine.hpp):
// their weights on the device and the pre-norm forward pass of
// transformers' T5EncoderModel, as the CPU engine computes it
// (cpu_t5_forward.hpp). The token embedding (no scale, no positions); per
// layer RMS norm, the attention step without score scale and with block
// 0's relative position bias (ForwardPass, gpu_forward.hpp), RMS norm, the
// ReLU or gated-GELU feed-forward step, each block's output added into the
// residual stream by its last GEMM; the final RMS norm. No biases: the QKV
// split reads a zero bias, the other GEMMs none.
//
// The placeholder first token (T5 has no leading token; t5_tokenizer.hpp)
// is embedded as zeros and attends to itself only (TokenRules'
// leading_placeholder), so with no biases its row stays zero through every
// layer, as on the CPU, and pooling and per-token output are the shared
// ones. GPU builds only.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu/nn/embedding.hpp"
#include "gpu/nn/rms_norm.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_model_engine.hpp"
#include "models/gpu_weights.hpp"
#include "models/protein_model.hpp"
#include "models/t5_math.hpp"
#include "models/t5_weights.hpp"

namespace seqfuse::models {
namespace gpu_embed {
namespace {

struct T5DeviceLayer {
  const float* attention_norm = nullptr;  // [hidden] fp32
  const float* ffn_norm = nullptr;
  AttentionWeights attention;
  FeedForwardWeights feed_forward;
};

class T5Family final : public GpuFamily {
 public:
  // Uploads `model` on `stream` and waits for it, so the model may be freed
  // afterwards (the relative position table is copied: reserve builds the
  // bias from it).
  T5Family(const T5Model& model, nn::NnType type, const std::string& device_name,
           gpu::Stream& stream, unsigned host_threads)
      : eps_(model.config.layer_norm_epsilon),
        heads_(static_cast<std::size_t>(model.config.num_heads)),
        num_buckets_(model.config.relative_attention_num_buckets),
        max_distance_(model.config.relative_attention_max_distance),
        relative_attention_bias_(model.relative_attention_bias),
        layers_(model.layers.size()) {
    const bool gated = model.config.feed_forward == T5FeedForward::gated_gelu;
    WeightPlacer placer(type);
    placer.put(model.token_embeddings, token_embeddings_);
    placer.put(model.final_norm_weight, final_norm_);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const T5LayerWeights& w = model.layers[i];
      T5DeviceLayer& d = layers_[i];
      placer.put(w.attention_norm_weight, d.attention_norm);
      placer.put(w.ffn_norm_weight, d.ffn_norm);
      placer.put_typed_stacked({&w.query_weight, &w.key_weight, &w.value_weight},
                               d.attention.qkv_weight);
      placer.put_typed(w.attention_output_weight, d.attention.output_weight);
      placer.put_typed(w.input_weight, d.feed_forward.up_weight);
      if (gated) placer.put_typed(w.gate_linear_weight, d.feed_forward.gate_weight);
      placer.put_typed(w.output_weight, d.feed_forward.down_weight);
    }
    buffer_ = placer.upload(device_name, stream, host_threads);
  }

  // Relative positions: any length runs (the bias table grows, as ESM-2's
  // rotary tables do).
  void reserve(std::size_t longest_tokens, gpu::Stream& stream) override {
    longest_tokens = std::max<std::size_t>(longest_tokens, 1);
    if (longest_tokens <= position_bias_.tokens) return;
    const std::vector<float> bias = t5_position_bias(relative_attention_bias_, heads_, num_buckets_,
                                                     max_distance_, longest_tokens);
    stream.synchronize();  // the old table may still be in use
    position_bias_.table = gpu::DeviceBuffer(bias.size() * sizeof(float));
    gpu::copy_to_device(position_bias_.table.data(), bias.data(), bias.size() * sizeof(float),
                        stream);
    stream.synchronize();  // a pageable source
    position_bias_.tokens = longest_tokens;
  }

  void forward(ForwardPass& pass) override {
    const std::size_t h = pass.shape().hidden, tokens = pass.tokens();
    const nn::NnType type = pass.shape().type;
    gpu::Stream& stream = pass.stream();
    float* residual = pass.residual();
    void* normed = pass.normed();
    // The placeholder's scale is 0 (Workspace::upload_batch), every other 1.
    pass.queued(
        nn::embed_tokens(pass.ids(), pass.scales(), tokens, token_embeddings_, h, residual, stream),
        "embedding");
    pass.capture(residual, 0);
    const std::size_t last = layers_.size();
    for (std::size_t i = 0; i < last; ++i) {
      pass.start_layer(i);
      const T5DeviceLayer& w = layers_[i];
      pass.queued(nn::rms_norm(residual, tokens, h, w.attention_norm, eps_, normed, type, stream),
                  "RMS norm");
      pass.attention(normed, w.attention, position_bias_);
      pass.queued(nn::rms_norm(residual, tokens, h, w.ffn_norm, eps_, normed, type, stream),
                  "RMS norm");
      pass.feed_forward(normed, w.feed_forward);
      // transformers' hidden_states: each block's output, but the last entry
      // is the final norm's output (below).
      if (i + 1 < last) pass.capture(residual, static_cast<int>(i + 1));
    }
    float* final_states = pass.final_states();
    pass.queued(
        nn::rms_norm(residual, tokens, h, final_norm_, eps_, final_states, nn::NnType::f32, stream),
        "final RMS norm");
    pass.capture(final_states, static_cast<int>(last));
  }

 private:
  double eps_;
  std::size_t heads_;
  int num_buckets_, max_distance_;
  std::vector<float> relative_attention_bias_;  // [num_buckets][heads], host
  gpu::DeviceBuffer buffer_;                    // every tensor below points into it
  const float* token_embeddings_ = nullptr;
  const float* final_norm_ = nullptr;
  std::vector<T5DeviceLayer> layers_;
  PositionBiasTable position_bias_;  // empty until reserve
};

}  // namespace
}  // namespace gpu_embed

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const T5Model& model,
                                                 const GpuEngineOptions& options) {
  gpu_embed::TokenRules tokens("(a placeholder) ... </s>");
  tokens.leading_placeholder = true;
  return gpu_embed::make_family_engine<gpu_embed::T5Family>(model, std::move(tokens), options);
}

}  // namespace seqfuse::models
