// BERT's forward pass on the device (ForwardPass::run for BertDeviceWeights),
// over the ops and GEMMs of ESM-2's pass (gpu_forward.cpp): the embedding sum
// (word + token type 0 + absolute position) and its LayerNorm, then per
// layer the QKV GEMM, QKV bias + query scale into heads (no rotation),
// variable-length attention, the output GEMM added into the hidden state,
// LayerNorm in place; the up-projection with GELU, the down GEMM added into
// the hidden state, LayerNorm in place. Post-LN: the hidden state between
// layers is the normed value, so each LayerNorm rewrites the fp32 residual
// buffer and, in 16-bit compute, leaves a copy for the next GEMM (in fp32
// the GEMMs read the residual buffer itself). GPU builds only.
#include <cmath>

#include "gpu/nn/attention.hpp"
#include "gpu/nn/embedding.hpp"
#include "gpu/nn/gelu.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "gpu/nn/rotary.hpp"
#include "models/gpu_forward.hpp"

namespace seqfuse::models::esm_gpu {

void ForwardPass::run(const BertDeviceWeights& weights, const Workspace& workspace,
                      const BatchReadout& batch) {
  const ActivationLayout& layout = workspace.layout();
  const std::size_t h = shape_.hidden, intermediate = shape_.intermediate, tokens = batch.tokens;
  const nn::NnType type = shape_.type;
  float* residual = workspace.at<float>(layout.residual);
  void* normed = workspace.at(layout.normed);
  void* qkv = workspace.at(layout.qkv);
  void* context = workspace.at(layout.context);
  void* inter = workspace.at(layout.inter);
  // What the GEMMs after a LayerNorm read: the hidden state itself in fp32,
  // its 16-bit copy otherwise.
  const bool copy = type != nn::NnType::f32;
  void* gemm_input = copy ? normed : static_cast<void*>(residual);
  const auto norm = [&](const float* weight, const float* bias, const char* op) {
    queued(nn::layer_norm_in_place(residual, tokens, h, weight, bias, eps_, copy ? normed : nullptr,
                                   type, stream_),
           op);
  };
  const auto* positions = workspace.at<const std::int32_t>(layout.positions);

  trace_ops_ = first_forward_;
  queued(nn::embed_tokens_absolute(workspace.at<const std::int32_t>(layout.ids), positions, tokens,
                                   weights.word_embeddings, weights.position_embeddings,
                                   weights.token_type_embedding, h, residual, stream_),
         "embedding");
  norm(weights.embedding_norm_weight, weights.embedding_norm_bias, "embedding LayerNorm");
  capture_hidden_state(residual, 0, batch, stream_);
  for (std::size_t i = 0; i < weights.layers.size(); ++i) {
    trace_ops_ = first_forward_ && i == 0;
    const BertDeviceLayer& w = weights.layers[i];
    run_linear(linear(gemm_input, w.qkv_weight, h, 3 * h, qkv, type, tokens));
    nn::QkvRotary split;
    split.qkv = qkv;
    split.qkv_type = type;
    split.bias = w.qkv_bias;
    split.rotate = false;
    split.tokens = tokens;
    split.heads = shape_.heads;
    split.head_dim = shape_.head_dim;
    split.query_scale = 1.0f / std::sqrt(static_cast<float>(shape_.head_dim));
    split.query = workspace.at(layout.query);
    split.key = workspace.at(layout.key);
    split.value = workspace.at(layout.value);
    split.out_type = type;
    queued(nn::qkv_bias_rotary(split, stream_), "QKV bias");
    nn::VarlenAttention attention;
    attention.query = split.query;
    attention.key = split.key;
    attention.value = split.value;
    attention.in_type = type;
    attention.tiles = workspace.at<const nn::AttentionTile>(layout.tiles);
    attention.tile_count = workspace.tile_count();
    attention.tokens = tokens;
    attention.heads = shape_.heads;
    attention.head_dim = shape_.head_dim;
    attention.out = context;
    attention.out_type = type;
    queued(nn::varlen_attention(attention, stream_), "attention");
    run_into_residual(
        linear(context, w.attention_output_weight, h, h, residual, nn::NnType::f32, tokens),
        w.attention_output_bias);
    norm(w.attention_norm_weight, w.attention_norm_bias, "attention LayerNorm");
    nn::Linear up = linear(gemm_input, w.intermediate_weight, h, intermediate, inter, type, tokens);
    if (fused_gelu(type)) {
      up.bias = w.intermediate_bias;
      up.bias_type = type;
      up.activation = nn::Activation::gelu_tanh;
      run_linear(up);
    } else {
      run_linear(up);
      queued(nn::bias_gelu(inter, type, static_cast<const float*>(w.intermediate_bias), tokens,
                           intermediate, inter, type, stream_),
             "GELU");
    }
    run_into_residual(
        linear(inter, w.output_weight, intermediate, h, residual, nn::NnType::f32, tokens),
        w.output_bias);
    norm(w.output_norm_weight, w.output_norm_bias, "output LayerNorm");
    capture_hidden_state(residual, static_cast<int>(i + 1), batch, stream_);
  }
  trace_ops_ = first_forward_ = false;
}

}  // namespace seqfuse::models::esm_gpu
