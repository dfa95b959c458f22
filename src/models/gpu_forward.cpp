#include "models/gpu_forward.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/gpu_status.hpp"
#include "core/report.hpp"
#include "gpu/nn/attention.hpp"
#include "gpu/nn/gated_gelu.hpp"
#include "gpu/nn/gelu.hpp"
#include "gpu/nn/rotary.hpp"

namespace seqfuse::models::gpu_embed {
namespace {

// SEQFUSE_ATTENTION_LAYOUT (4x16, 8x16 or 4x32) measures the tensor-core
// attention kernel's block shapes on a GPU machine; unset, the kernel's
// default (attention.hpp).
nn::MmaLayout attention_layout() {
  static const nn::MmaLayout layout = [] {
    const char* text = std::getenv("SEQFUSE_ATTENTION_LAYOUT");
    nn::MmaLayout parsed = nn::MmaLayout::automatic;
    if (text && *text && !nn::parse_mma_layout(text, parsed))
      throw UsageError(std::string("SEQFUSE_ATTENTION_LAYOUT must be 4x16, 8x16 or 4x32, not '") +
                       text + "'");
    return parsed;
  }();
  return layout;
}

}  // namespace

void ForwardPass::begin(const Workspace& workspace, const BatchReadout& batch) {
  workspace_ = &workspace;
  batch_ = &batch;
  trace_ops_ = first_forward_;  // the embedding's ops and the first layer's
}

void ForwardPass::end() {
  trace_ops_ = first_forward_ = false;
  workspace_ = nullptr;
  batch_ = nullptr;
}

const std::int32_t* ForwardPass::ids() const {
  return workspace_->at<const std::int32_t>(workspace_->layout().ids);
}

const std::int32_t* ForwardPass::positions() const {
  return workspace_->at<const std::int32_t>(workspace_->layout().positions);
}

const double* ForwardPass::scales() const {
  return workspace_->at<const double>(workspace_->layout().scales);
}

float* ForwardPass::residual() const {
  return workspace_->at<float>(workspace_->layout().residual);
}

void* ForwardPass::normed() const {
  return workspace_->at(workspace_->layout().normed);
}

float* ForwardPass::final_states() const {
  return workspace_->at<float>(workspace_->layout().final);
}

void ForwardPass::queued(gpu::Status status, const char* op) {
  // The op's name is spelled out only on failure: this runs for every op.
  if (status != gpu::Status::kSuccess) require_gpu_success(status, std::string("GPU embed: ") + op);
  if (trace_ops_) trace(std::string("embed: first batch: ") + op + " queued");
}

nn::Linear ForwardPass::linear(const void* x, const void* w, std::size_t in, std::size_t out,
                               void* y, nn::NnType y_type) const {
  nn::Linear job;
  job.x = x;
  job.w = w;
  job.type = shape_.type;
  job.rows = batch_->tokens;
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

void ForwardPass::attention(const void* input, const AttentionWeights& w,
                            const RotaryTable* rotary) {
  attend(input, w, rotary, nullptr);
}

void ForwardPass::attention(const void* input, const AttentionWeights& w,
                            const PositionBiasTable& bias) {
  attend(input, w, nullptr, &bias);
}

void ForwardPass::attend(const void* input, const AttentionWeights& w, const RotaryTable* rotary,
                         const PositionBiasTable* bias) {
  const ActivationLayout& layout = workspace_->layout();
  const std::size_t h = shape_.hidden, inner = shape_.inner;
  const nn::NnType type = shape_.type;
  void* qkv = workspace_->at(layout.qkv);
  run_linear(linear(input, w.qkv_weight, h, 3 * inner, qkv, type));
  // The QKV GEMM's output is [tokens][query, key, value][heads][head_dim].
  // Values go to attention from it directly (their bias joins attention's
  // output); queries and keys take a pass of their own for the bias, the
  // score scale and the rotation, unless they need none of them (T5).
  const std::size_t element = nn::element_bytes(type);
  const auto section = [&](std::size_t k) {
    return static_cast<const char*>(qkv) + k * inner * element;
  };
  const nn::OperandStrides in_qkv{3 * inner, shape_.head_dim};
  // T5 folds the scale into its weights.
  const float query_scale = bias ? 1.0f : 1.0f / std::sqrt(static_cast<float>(shape_.head_dim));
  nn::VarlenAttention attend;
  attend.value = section(2);
  attend.value_strides = in_qkv;
  attend.value_bias = w.qkv_bias ? w.qkv_bias + 2 * inner : nullptr;
  if (rotary || w.qkv_bias || query_scale != 1.0f) {
    nn::QkvRotary split;
    split.qkv = qkv;
    split.qkv_type = type;
    split.bias = w.qkv_bias;
    split.rotate = rotary != nullptr;
    if (rotary) {
      split.positions = positions();
      split.cos = rotary->cos.as<const float>();
      split.sin = rotary->sin.as<const float>();
      split.table_positions = rotary->positions;
    }
    split.tokens = batch_->tokens;
    split.heads = shape_.heads;
    split.head_dim = shape_.head_dim;
    split.query_scale = query_scale;
    split.query = workspace_->at(layout.query);
    split.key = workspace_->at(layout.key);
    split.out_type = type;
    queued(nn::qkv_bias_rotary(split, stream_), rotary ? "rotary" : "QKV bias");
    attend.query = split.query;
    attend.key = split.key;
  } else {
    attend.query = section(0);
    attend.key = section(1);
    attend.query_strides = attend.key_strides = in_qkv;
  }
  attend.in_type = type;
  attend.tiles = workspace_->at<const nn::AttentionTile>(layout.tiles);
  attend.tile_count = workspace_->tile_count();
  attend.tokens = batch_->tokens;
  attend.heads = shape_.heads;
  attend.head_dim = shape_.head_dim;
  attend.mma_layout = attention_layout();
  if (bias) {
    attend.position_bias = bias->table.as<const float>();
    attend.bias_tokens = bias->tokens;
  }
  void* context = workspace_->at(layout.context);
  attend.out = context;
  attend.out_type = type;
  queued(nn::varlen_attention(attend, stream_), "attention");
  run_into_residual(linear(context, w.output_weight, inner, h, residual(), nn::NnType::f32),
                    w.output_bias);
}

void ForwardPass::feed_forward(const void* input, const FeedForwardWeights& w) {
  const std::size_t h = shape_.hidden, intermediate = shape_.intermediate;
  const nn::NnType type = shape_.type;
  void* inter = workspace_->at(workspace_->layout().inter);
  nn::Linear up = linear(input, w.up_weight, h, intermediate, inter, type);
  if (shape_.feed_forward == FeedForwardKind::relu) {
    up.activation = nn::Activation::relu;
    run_linear(up);
  } else if (shape_.feed_forward == FeedForwardKind::gated_gelu) {
    const std::size_t count = batch_->tokens * intermediate;
    void* gate = workspace_->at(workspace_->layout().gate);
    run_linear(up);
    run_linear(linear(input, w.gate_weight, h, intermediate, gate, type));
    queued(nn::gated_gelu(inter, gate, count, type, stream_), "gated GELU");
  } else if (fused_gelu(type)) {
    up.bias = w.up_bias;
    up.bias_type = type;
    up.activation = nn::Activation::gelu_tanh;
    run_linear(up);
  } else {
    run_linear(up);
    queued(nn::bias_gelu(inter, type, static_cast<const float*>(w.up_bias), batch_->tokens,
                         intermediate, inter, type, stream_),
           "GELU");
  }
  run_into_residual(linear(inter, w.down_weight, intermediate, h, residual(), nn::NnType::f32),
                    w.down_bias);
}

void ForwardPass::capture(const float* states, int index) {
  capture_hidden_state(states, index, *batch_, stream_);
}

}  // namespace seqfuse::models::gpu_embed
