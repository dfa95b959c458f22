// BERT protein models (ProtBERT) on the GPU engine's shell
// (gpu_model_engine.hpp): their weights on the device and the post-LN
// forward pass. The embedding sum (word + token type 0 + absolute position)
// and its LayerNorm; then per layer the attention step without rotation, its
// output added into the hidden state, LayerNorm in place; the feed-forward
// step, LayerNorm in place (ForwardPass, gpu_forward.hpp). Post-LN: the hidden
// state between layers is the normed value, so each LayerNorm rewrites the
// fp32 residual buffer and, in 16-bit compute, leaves a copy for the next
// GEMM (in fp32 the GEMMs read the residual buffer itself). GPU builds only.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gpu/nn/embedding.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "models/bert_weights.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_model_engine.hpp"
#include "models/gpu_weights.hpp"

namespace seqfuse::models {
namespace gpu_embed {
namespace {

// A layer's tensors on the device (post-LN: the norms follow the blocks).
struct BertDeviceLayer {
  AttentionWeights attention;
  NormWeights attention_norm;
  FeedForwardWeights feed_forward;
  NormWeights output_norm;
};

class BertFamily final : public GpuFamily {
 public:
  // Uploads `model` on `stream` and waits for it, so the model may be freed
  // afterwards.
  BertFamily(const BertModel& model, nn::NnType type, const std::string& device_name,
             gpu::Stream& stream, unsigned host_threads)
      : eps_(model.config.layer_norm_eps),
        max_positions_(model.config.max_position_embeddings),
        layers_(model.layers.size()) {
    WeightPlacer placer(type);
    placer.put(model.word_embeddings, word_embeddings_);
    placer.put(model.position_embeddings, position_embeddings_);
    placer.put(model.token_type_embedding, token_type_embedding_);
    placer.put_norm(model.embedding_norm_weight, model.embedding_norm_bias, embedding_norm_);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const BertLayerWeights& w = model.layers[i];
      BertDeviceLayer& d = layers_[i];
      placer.put_attention(w, d.attention);
      placer.put_norm(w.attention_norm_weight, w.attention_norm_bias, d.attention_norm);
      placer.put_feed_forward(w, d.feed_forward);
      placer.put_norm(w.output_norm_weight, w.output_norm_bias, d.output_norm);
    }
    buffer_ = placer.upload(device_name, stream, host_threads);
  }

  // Absolute positions: a sequence longer than the table cannot run.
  void reserve(std::size_t longest_tokens, gpu::Stream&) override {
    if (longest_tokens > static_cast<std::size_t>(max_positions_))
      throw Error("a sequence of " + std::to_string(longest_tokens) +
                  " tokens is longer than the model's position table (max_position_embeddings " +
                  std::to_string(max_positions_) + ")");
  }

  void forward(ForwardPass& pass) override {
    const std::size_t h = pass.shape().hidden, tokens = pass.tokens();
    const nn::NnType type = pass.shape().type;
    gpu::Stream& stream = pass.stream();
    float* residual = pass.residual();
    // What the GEMMs after a LayerNorm read: the hidden state itself in fp32,
    // its 16-bit copy otherwise.
    const bool copy = type != nn::NnType::f32;
    void* normed = pass.normed();
    void* gemm_input = copy ? normed : static_cast<void*>(residual);
    const auto norm = [&](const NormWeights& w, const char* op) {
      pass.queued(nn::layer_norm_in_place(residual, tokens, h, w.weight, w.bias, eps_,
                                          copy ? normed : nullptr, type, stream),
                  op);
    };
    pass.queued(
        nn::embed_tokens_absolute(pass.ids(), pass.positions(), tokens, word_embeddings_,
                                  position_embeddings_, token_type_embedding_, h, residual, stream),
        "embedding");
    norm(embedding_norm_, "embedding LayerNorm");
    pass.capture(residual, 0);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      pass.start_layer(i);
      const BertDeviceLayer& w = layers_[i];
      pass.attention(gemm_input, w.attention, nullptr);
      norm(w.attention_norm, "attention LayerNorm");
      pass.feed_forward(gemm_input, w.feed_forward);
      norm(w.output_norm, "output LayerNorm");
      pass.capture(residual, static_cast<int>(i + 1));
    }
  }

 private:
  double eps_;
  int max_positions_;
  gpu::DeviceBuffer buffer_;  // every tensor below points into it
  const float *word_embeddings_ = nullptr, *position_embeddings_ = nullptr;
  const float* token_type_embedding_ = nullptr;
  NormWeights embedding_norm_;
  std::vector<BertDeviceLayer> layers_;
};

}  // namespace
}  // namespace gpu_embed

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const BertModel& model,
                                                 const GpuEngineOptions& options) {
  return gpu_embed::make_family_engine<gpu_embed::BertFamily>(
      model, gpu_embed::TokenRules("[CLS] ... [SEP]"), options);
}

}  // namespace seqfuse::models
