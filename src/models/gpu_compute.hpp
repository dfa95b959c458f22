// How the GPU engine of embed computes, shared by its parts (gpu_*.cpp, which
// are compiled only in builds with a GPU backend): the element type of each
// ComputeType, where GELU is fused into a GEMM, the model sizes every part
// works with, the GEMMs of one layer, and the aligned layout of sub-buffers
// in one device allocation (weights and activations alike).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu/nn/gemm.hpp"
#include "gpu/nn/nn_types.hpp"
#include "models/engine.hpp"
#include "models/t5_config.hpp"

namespace seqfuse::models::gpu_embed {

namespace nn = gpu::nn;

[[nodiscard]] nn::NnType nn_type(ComputeType compute) noexcept;
// "fp32", "bf16", "fp16": as --dtype spells them.
[[nodiscard]] const char* type_name(nn::NnType type) noexcept;
// "12 MiB", rounded up: for messages about device memory.
[[nodiscard]] std::string mib(std::size_t bytes);

// Whether the up-projection applies bias and GELU in its GEMM (cuBLASLt's
// epilogue, the tanh form of GELU) instead of a GELU kernel after it (ESM's
// exact erf form). Only for 16-bit compute: there the fused form saves a
// read and a write of the widest activation (13 % of the 8M model's GPU time
// went to the GELU kernel) and its rounding of the pre-activation to 16 bits,
// and the tanh form's error (at most 4.8e-4) is of the size of that rounding.
// fp32, the exact path, keeps the erf form.
[[nodiscard]] inline bool fused_gelu(nn::NnType type) noexcept {
  return type != nn::NnType::f32;
}

// Byte offsets of sub-buffers inside one allocation, each aligned for
// cuBLASLt (kGemmAlignment).
class Layout {
 public:
  std::size_t add(std::size_t bytes) {
    const std::size_t at = total_;
    total_ += (bytes + nn::kGemmAlignment - 1) / nn::kGemmAlignment * nn::kGemmAlignment;
    return at;
  }
  [[nodiscard]] std::size_t total() const noexcept { return total_; }

 private:
  std::size_t total_ = 0;
};

// A family's feed-forward block, as the GEMMs and the step between them run.
enum class FeedForwardKind {
  bias_gelu,   // ESM-2, BERT: up with bias, GELU, down with bias
  relu,        // T5 "relu": up, ReLU (the GEMM's epilogue), down; no biases
  gated_gelu,  // T5 "gated-gelu": GELU(up) x gate (two GEMMs), down; no biases
};

// The model's sizes and the element type its GEMMs and attention take.
struct ModelShape {
  std::size_t hidden = 0, heads = 0, head_dim = 0, intermediate = 0;
  // heads x head_dim, the attention's width: the hidden size for ESM-2 and
  // BERT; T5's may differ (ProtT5-XL: 32 x 128 = 4,096 against 1,024).
  std::size_t inner = 0;
  FeedForwardKind feed_forward = FeedForwardKind::bias_gelu;
  nn::NnType type = nn::NnType::f32;
};
// From a family's config (hidden_size, num_heads, head_dim(),
// intermediate_size: EsmConfig, BertConfig).
template <class Config>
[[nodiscard]] ModelShape model_shape(const Config& config, ComputeType compute) {
  ModelShape shape;
  shape.hidden = static_cast<std::size_t>(config.hidden_size);
  shape.heads = static_cast<std::size_t>(config.num_heads);
  shape.head_dim = static_cast<std::size_t>(config.head_dim());
  shape.intermediate = static_cast<std::size_t>(config.intermediate_size);
  shape.inner = shape.heads * shape.head_dim;
  shape.type = nn_type(compute);
  return shape;
}
// T5's (d_model, num_heads, d_kv, d_ff, feed_forward_proj).
[[nodiscard]] ModelShape model_shape(const T5Config& config, ComputeType compute);

// The GEMM an engine runs: the tiled kernel where `tiled` asks (tests), else
// cuBLASLt, or the backend SEQFUSE_EMBED_GEMM names (cublaslt, mma or tiled;
// a knob to measure the choice on a GPU machine). The tensor-core kernel of
// ours (gpu/nn/gemm_mma.cu) spares a run cuBLASLt's ~0.2 s first use but runs
// at a third to a half of its rate (run 39), so it is not chosen on its own.
[[nodiscard]] nn::GemmBackend gemm_backend_for(bool tiled);

// The GEMMs of every layer, as ForwardPass's attention and feed-forward
// steps (gpu_forward.cpp) run them for a model of `shape` (pointers left
// null, a bias marked by a placeholder): what warm_up_gpu_engine has
// cuBLASLt choose algorithms for. Keep in step with those steps.
[[nodiscard]] std::vector<nn::Linear> layer_gemm_shapes(const ModelShape& shape);

}  // namespace seqfuse::models::gpu_embed
