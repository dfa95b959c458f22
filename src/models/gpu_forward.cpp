#include "models/gpu_forward.hpp"

#include <cmath>
#include <string>

#include "core/gpu_status.hpp"
#include "core/report.hpp"
#include "gpu/nn/attention.hpp"
#include "gpu/nn/embedding.hpp"
#include "gpu/nn/gelu.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "gpu/nn/rotary.hpp"

namespace seqfuse::models::esm_gpu {

void ForwardPass::queued(gpu::Status status, const char* op) {
  // The op's name is spelled out only on failure: this runs for every op.
  if (status != gpu::Status::kSuccess) require_gpu_success(status, std::string("GPU embed: ") + op);
  if (trace_ops_) trace(std::string("embed: first batch: ") + op + " queued");
}

nn::Linear ForwardPass::linear(const void* x, const void* w, std::size_t in, std::size_t out,
                               void* y, nn::NnType y_type, std::size_t rows) const {
  nn::Linear job;
  job.x = x;
  job.w = w;
  job.type = shape_.type;
  job.rows = rows;
  job.in = in;
  job.out = out;
  job.y = y;
  job.y_type = y_type;
  return job;
}

void ForwardPass::run_linear(const nn::Linear& job) {
  queued(gemm_.run(job, stream_), "GEMM");
}

void ForwardPass::run_into_residual(nn::Linear job, const float* bias) {
  job.bias = bias;
  job.accumulate = true;
  run_linear(job);
}

void ForwardPass::run(const DeviceWeights& weights, const Workspace& workspace,
                      const BatchReadout& batch) {
  const ActivationLayout& layout = workspace.layout();
  const std::size_t h = shape_.hidden, intermediate = shape_.intermediate, tokens = batch.tokens;
  const nn::NnType type = shape_.type;
  float* residual = workspace.at<float>(layout.residual);
  void* normed = workspace.at(layout.normed);
  void* qkv = workspace.at(layout.qkv);
  void* context = workspace.at(layout.context);
  void* inter = workspace.at(layout.inter);

  trace_ops_ = first_forward_;
  queued(nn::embed_tokens(workspace.at<const std::int32_t>(layout.ids),
                          workspace.at<const double>(layout.scales), tokens,
                          weights.word_embeddings, h, residual, stream_),
         "embedding");
  for (std::size_t i = 0; i < weights.layers.size(); ++i) {
    trace_ops_ = first_forward_ && i == 0;
    const DeviceLayer& w = weights.layers[i];
    // Each block's output joined the residual stream in its last GEMM
    // (accumulate), so the LayerNorms only read it.
    queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.attention_norm_weight,
                              w.attention_norm_bias, eps_, normed, type, stream_),
           "LayerNorm");
    capture_hidden_state(residual, static_cast<int>(i), batch, stream_);
    run_linear(linear(normed, w.qkv_weight, h, 3 * h, qkv, type, tokens));
    const RotaryTable& table = weights.rotary[w.rotary];
    nn::QkvRotary rope;
    rope.qkv = qkv;
    rope.qkv_type = type;
    rope.bias = w.qkv_bias;
    rope.positions = workspace.at<const std::int32_t>(layout.positions);
    rope.cos = table.cos.as<const float>();
    rope.sin = table.sin.as<const float>();
    rope.table_positions = table.positions;
    rope.tokens = tokens;
    rope.heads = shape_.heads;
    rope.head_dim = shape_.head_dim;
    rope.query_scale = 1.0f / std::sqrt(static_cast<float>(shape_.head_dim));
    rope.query = workspace.at(layout.query);
    rope.key = workspace.at(layout.key);
    rope.value = workspace.at(layout.value);
    rope.out_type = type;
    queued(nn::qkv_bias_rotary(rope, stream_), "rotary");
    nn::VarlenAttention attention;
    attention.query = rope.query;
    attention.key = rope.key;
    attention.value = rope.value;
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
    queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.ffn_norm_weight, w.ffn_norm_bias,
                              eps_, normed, type, stream_),
           "LayerNorm");
    nn::Linear up = linear(normed, w.intermediate_weight, h, intermediate, inter, type, tokens);
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
  }
  float* final_states = workspace.at<float>(layout.final);
  queued(nn::add_layer_norm(residual, nullptr, tokens, h, weights.final_norm_weight,
                            weights.final_norm_bias, eps_, final_states, nn::NnType::f32, stream_),
         "final LayerNorm");
  capture_hidden_state(final_states, static_cast<int>(weights.layers.size()), batch, stream_);
  trace_ops_ = first_forward_ = false;
}

}  // namespace seqfuse::models::esm_gpu
