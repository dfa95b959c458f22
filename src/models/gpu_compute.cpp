#include "models/gpu_compute.hpp"

#include <cstdlib>
#include <string_view>

#include "core/error.hpp"

namespace seqfuse::models::gpu_embed {

nn::NnType nn_type(ComputeType compute) noexcept {
  switch (compute) {
    case ComputeType::bf16:
      return nn::NnType::bf16;
    case ComputeType::fp16:
      return nn::NnType::f16;
    case ComputeType::fp32:
      break;
  }
  return nn::NnType::f32;
}

const char* type_name(nn::NnType type) noexcept {
  return type == nn::NnType::bf16 ? "bf16" : type == nn::NnType::f16 ? "fp16" : "fp32";
}

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (std::size_t{1} << 20) - 1) >> 20) + " MiB";
}

ModelShape model_shape(const T5Config& config, ComputeType compute) {
  ModelShape shape;
  shape.hidden = static_cast<std::size_t>(config.d_model);
  shape.heads = static_cast<std::size_t>(config.num_heads);
  shape.head_dim = static_cast<std::size_t>(config.d_kv);
  shape.intermediate = static_cast<std::size_t>(config.d_ff);
  shape.inner = shape.heads * shape.head_dim;
  shape.feed_forward = config.feed_forward == T5FeedForward::gated_gelu
                           ? FeedForwardKind::gated_gelu
                           : FeedForwardKind::relu;
  shape.type = nn_type(compute);
  return shape;
}

std::vector<nn::Linear> layer_gemm_shapes(const ModelShape& shape) {
  static const float kBiasMark = 0;
  const nn::NnType type = shape.type;
  const std::size_t hidden = shape.hidden, inner = shape.inner, intermediate = shape.intermediate;
  const bool biases = shape.feed_forward == FeedForwardKind::bias_gelu;  // T5 has none
  const auto linear = [&](std::size_t in, std::size_t out, nn::NnType y_type, bool bias) {
    nn::Linear job;
    job.type = type;
    job.rows = 65536;  // any row count: algorithms serve every count
    job.in = in;
    job.out = out;
    job.y_type = y_type;
    job.bias = bias ? &kBiasMark : nullptr;
    return job;
  };
  nn::Linear up = linear(hidden, intermediate, type, biases && fused_gelu(type));
  if (shape.feed_forward == FeedForwardKind::relu) {
    up.activation = nn::Activation::relu;
  } else if (biases && fused_gelu(type)) {
    up.bias_type = type;
    up.activation = nn::Activation::gelu_tanh;
  }
  // The two into the residual stream add to y (cuBLASLt runs another kernel
  // for beta = 1, which the warm-up should load). gated-GELU's gate GEMM has
  // the up-projection's shape.
  nn::Linear attention_output = linear(inner, hidden, nn::NnType::f32, biases);
  nn::Linear down = linear(intermediate, hidden, nn::NnType::f32, biases);
  attention_output.accumulate = down.accumulate = true;
  return {linear(hidden, 3 * inner, type, false), attention_output, up, down};
}

nn::GemmBackend gemm_backend_for(bool tiled) {
  if (tiled) return nn::GemmBackend::tiled;
  if (const char* text = std::getenv("SEQFUSE_EMBED_GEMM"); text && *text) {
    const std::string_view asked(text);
    if (asked == "cublaslt") return nn::GemmBackend::automatic;
    if (asked == "mma") return nn::GemmBackend::mma;
    if (asked == "tiled") return nn::GemmBackend::tiled;
    throw UsageError("SEQFUSE_EMBED_GEMM must be cublaslt, mma or tiled, not '" +
                     std::string(asked) + "'");
  }
  return nn::GemmBackend::automatic;
}

}  // namespace seqfuse::models::gpu_embed
