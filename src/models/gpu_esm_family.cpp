// ESM-2 on the GPU engine's shell (gpu_model_engine.hpp): its weights on the
// device and its pre-LN forward pass. The embedding with token dropout's
// scale, then per layer LayerNorm, the attention step with rotary positions,
// LayerNorm and the feed-forward step (ForwardPass, gpu_forward.hpp), each
// block's output added into the residual stream by its last GEMM; the final
// LayerNorm. GPU builds only.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu/nn/embedding.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "models/esm_weights.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_model_engine.hpp"
#include "models/gpu_weights.hpp"

namespace seqfuse::models {
namespace gpu_embed {
namespace {

struct EsmDeviceLayer {
  NormWeights attention_norm, ffn_norm;
  AttentionWeights attention;
  FeedForwardWeights feed_forward;
  std::size_t rotary = 0;  // index into EsmFamily::rotary_
};

class EsmFamily final : public GpuFamily {
 public:
  // Uploads `model` on `stream` and waits for it, so the model may be freed
  // afterwards.
  EsmFamily(const EsmModel& model, nn::NnType type, const std::string& device_name,
            gpu::Stream& stream, unsigned host_threads)
      : eps_(model.config.layer_norm_eps),
        head_dim_(static_cast<std::size_t>(model.config.head_dim())),
        layers_(model.layers.size()) {
    WeightPlacer placer(type);
    placer.put(model.word_embeddings, word_embeddings_);
    placer.put_norm(model.final_norm_weight, model.final_norm_bias, final_norm_);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const EsmLayerWeights& w = model.layers[i];
      EsmDeviceLayer& d = layers_[i];
      placer.put_norm(w.attention_norm_weight, w.attention_norm_bias, d.attention_norm);
      placer.put_norm(w.ffn_norm_weight, w.ffn_norm_bias, d.ffn_norm);
      placer.put_attention(w, d.attention);
      placer.put_feed_forward(w, d.feed_forward);
      d.rotary = rotary_table_for(w.rotary_inv_freq, rotary_);
    }
    buffer_ = placer.upload(device_name, stream, host_threads);
  }

  // Rotary positions: any length runs (the tables grow).
  void reserve(std::size_t longest_tokens, gpu::Stream& stream) override {
    grow_rotary_tables(rotary_, head_dim_, std::max<std::size_t>(longest_tokens, 1), stream);
  }

  void forward(ForwardPass& pass) override {
    const std::size_t h = pass.shape().hidden, tokens = pass.tokens();
    const nn::NnType type = pass.shape().type;
    gpu::Stream& stream = pass.stream();
    float* residual = pass.residual();
    void* normed = pass.normed();
    pass.queued(
        nn::embed_tokens(pass.ids(), pass.scales(), tokens, word_embeddings_, h, residual, stream),
        "embedding");
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      pass.start_layer(i);
      const EsmDeviceLayer& w = layers_[i];
      // Each block's output joined the residual stream in its last GEMM
      // (accumulate), so the LayerNorms only read it.
      pass.queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.attention_norm.weight,
                                     w.attention_norm.bias, eps_, normed, type, stream),
                  "LayerNorm");
      pass.capture(residual, static_cast<int>(i));
      pass.attention(normed, w.attention, &rotary_[w.rotary]);
      pass.queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.ffn_norm.weight,
                                     w.ffn_norm.bias, eps_, normed, type, stream),
                  "LayerNorm");
      pass.feed_forward(normed, w.feed_forward);
    }
    float* final_states = pass.final_states();
    pass.queued(nn::add_layer_norm(residual, nullptr, tokens, h, final_norm_.weight,
                                   final_norm_.bias, eps_, final_states, nn::NnType::f32, stream),
                "final LayerNorm");
    pass.capture(final_states, static_cast<int>(layers_.size()));
  }

 private:
  double eps_;
  std::size_t head_dim_;
  gpu::DeviceBuffer buffer_;  // every tensor below points into it
  const float* word_embeddings_ = nullptr;
  NormWeights final_norm_;
  std::vector<EsmDeviceLayer> layers_;
  // One table per distinct inv_freq (layers share them); empty until reserve.
  std::vector<RotaryTable> rotary_;
};

}  // namespace
}  // namespace gpu_embed

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const EsmModel& model,
                                                 const GpuEngineOptions& options) {
  gpu_embed::TokenRules tokens("<cls> ... <eos>");
  if (model.config.token_dropout) tokens.dropout_mask = model.config.mask_token_id;
  return gpu_embed::make_family_engine<gpu_embed::EsmFamily>(model, std::move(tokens), options);
}

}  // namespace seqfuse::models
