// ESM-2 on the GPU engine's shell (gpu_model_engine.hpp): its weights on the
// device and its pre-LN forward pass. The embedding with token dropout's
// scale, then per layer LayerNorm, the attention step with rotary positions,
// LayerNorm and the feed-forward step (ForwardPass, gpu_forward.hpp), each
// block's output added into the residual stream by its last GEMM; the final
// LayerNorm. Under --dtype fp8 the QKV, up and down GEMMs take e4m3 operands
// with the scales put_fp8_layer fixes at load. GPU builds only.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu/nn/embedding.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "models/esm_weights.hpp"
#include "models/fp8_bounds.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_model_engine.hpp"
#include "models/gpu_weights.hpp"

namespace seqfuse::models {
namespace gpu_embed {
namespace {

// The GELU output's smallest bound whatever the pre-activation's: GELU's
// minimum, -0.17 (|GELU(h)| <= |h| elsewhere).
constexpr float kGeluLeast = 0.17f;

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
  EsmFamily(const EsmModel& model, const ModelShape& shape, const std::string& device_name,
            gpu::Stream& stream)
      : eps_(model.config.layer_norm_eps),
        head_dim_(static_cast<std::size_t>(model.config.head_dim())),
        layers_(model.layers.size()) {
    WeightPlacer placer(shape.type);
    placer.put(model.word_embeddings, word_embeddings_);
    placer.put_norm(model.final_norm_weight, model.final_norm_bias, final_norm_);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const EsmLayerWeights& w = model.layers[i];
      EsmDeviceLayer& d = layers_[i];
      placer.put_norm(w.attention_norm_weight, w.attention_norm_bias, d.attention_norm);
      placer.put_norm(w.ffn_norm_weight, w.ffn_norm_bias, d.ffn_norm);
      if (shape.gemm_input == nn::NnType::e4m3) {
        put_fp8_layer(w, shape, placer, d);
      } else {
        placer.put_attention(w, d.attention);
        placer.put_feed_forward(w, d.feed_forward);
      }
      d.rotary = rotary_table_for(w.rotary_inv_freq, rotary_);
    }
    buffer_ = placer.upload(device_name, stream);
  }

  // Rotary positions: any length runs (the tables grow).
  void reserve(std::size_t longest_tokens, gpu::Stream& stream) override {
    grow_rotary_tables(rotary_, head_dim_, std::max<std::size_t>(longest_tokens, 1), stream);
  }

  void forward(ForwardPass& pass) override {
    const std::size_t h = pass.shape().hidden, tokens = pass.tokens();
    gpu::Stream& stream = pass.stream();
    float* residual = pass.residual();
    void* normed = pass.normed();
    pass.queued(
        nn::embed_tokens(pass.ids(), pass.scales(), tokens, word_embeddings_, h, residual, stream),
        "embedding");
    const nn::NnType normed_type = pass.shape().gemm_input;  // e4m3 under --dtype fp8
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      pass.start_layer(i);
      const EsmDeviceLayer& w = layers_[i];
      // Each block's output joined the residual stream in its last GEMM
      // (accumulate), so the LayerNorms only read it.
      pass.queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.attention_norm.weight,
                                     w.attention_norm.bias, eps_, normed, normed_type, stream,
                                     w.attention_norm.e4m3_multiplier),
                  "LayerNorm");
      pass.capture(residual, static_cast<int>(i));
      pass.attention(normed, w.attention, &rotary_[w.rotary]);
      pass.queued(
          nn::add_layer_norm(residual, nullptr, tokens, h, w.ffn_norm.weight, w.ffn_norm.bias, eps_,
                             normed, normed_type, stream, w.ffn_norm.e4m3_multiplier),
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
  // --dtype fp8: the layer's QKV, up and down weights in e4m3, and the
  // scales of their inputs, from bounds on what those can hold: each
  // LayerNorm's largest output element, and the GELU output's largest value
  // over the up GEMM's rows given the LayerNorm's largest output norm. The
  // attention output GEMM and its inputs stay bf16.
  static void put_fp8_layer(const EsmLayerWeights& w, const ModelShape& shape, WeightPlacer& placer,
                            EsmDeviceLayer& d) {
    const float attention_in =
        e4m3_scale_for(layer_norm_element_bound(w.attention_norm_weight, w.attention_norm_bias));
    const float ffn_in =
        e4m3_scale_for(layer_norm_element_bound(w.ffn_norm_weight, w.ffn_norm_bias));
    const float gelu_bound = linear_output_bound(
        layer_norm_row_bound(w.ffn_norm_weight, w.ffn_norm_bias), w.intermediate_weight,
        w.intermediate_bias, shape.intermediate, shape.hidden);
    const float inter = e4m3_scale_for(std::max(gelu_bound, kGeluLeast));
    d.attention_norm.e4m3_multiplier = 1.0f / attention_in;
    d.ffn_norm.e4m3_multiplier = 1.0f / ffn_in;

    AttentionWeights& a = d.attention;
    placer.put_e4m3_stacked({&w.query_weight, &w.key_weight, &w.value_weight}, a.qkv_weight,
                            a.qkv_fp8.weight);
    placer.put_value(attention_in, a.qkv_fp8.input);
    placer.put_stacked({&w.query_bias, &w.key_bias, &w.value_bias}, a.qkv_bias);
    placer.put_typed(w.attention_output_weight, a.output_weight);
    placer.put(w.attention_output_bias, a.output_bias);

    FeedForwardWeights& f = d.feed_forward;
    placer.put_e4m3_stacked({&w.intermediate_weight}, f.up_weight, f.up_fp8.weight);
    placer.put_value(ffn_in, f.up_fp8.input);
    placer.put_typed(w.intermediate_bias, f.up_bias);  // bf16: the fused GELU's bias
    placer.put_value(1.0f / inter, f.up_output_multiplier);
    placer.put_e4m3_stacked({&w.output_weight}, f.down_weight, f.down_fp8.weight);
    placer.put_value(inter, f.down_fp8.input);
    placer.put_bf16(w.output_bias, f.down_bias_bf16);
  }

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
  return gpu_embed::make_family_engine<gpu_embed::EsmFamily>(model, std::move(tokens), options,
                                                             /*takes_fp8=*/true);
}

}  // namespace seqfuse::models
