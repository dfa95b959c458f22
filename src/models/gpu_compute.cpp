#include "models/gpu_compute.hpp"

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

std::array<nn::Linear, 4> layer_gemm_shapes(std::size_t hidden, std::size_t intermediate,
                                            nn::NnType type) {
  static const float kBiasMark = 0;
  const auto shape = [&](std::size_t in, std::size_t out, nn::NnType y_type, bool bias) {
    nn::Linear job;
    job.type = type;
    job.rows = 65536;  // any row count: algorithms serve every count
    job.in = in;
    job.out = out;
    job.y_type = y_type;
    job.bias = bias ? &kBiasMark : nullptr;
    return job;
  };
  nn::Linear up = shape(hidden, intermediate, type, fused_gelu(type));
  if (fused_gelu(type)) {
    up.bias_type = type;
    up.activation = nn::Activation::gelu_tanh;
  }
  // The two into the residual stream add to y (cuBLASLt runs another kernel
  // for beta = 1, which the warm-up should load).
  nn::Linear attention_output = shape(hidden, hidden, nn::NnType::f32, true);
  nn::Linear down = shape(intermediate, hidden, nn::NnType::f32, true);
  attention_output.accumulate = down.accumulate = true;
  return {shape(hidden, 3 * hidden, type, false), attention_output, up, down};
}

}  // namespace seqfuse::models::gpu_embed
