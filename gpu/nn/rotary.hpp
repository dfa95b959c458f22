// QKV bias + query scale + rotary position embedding in one pass, from the
// fused QKV GEMM's output to the head-major layout attention reads. Plain
// C++ (src/ calls it); the kernel is in rotary.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

struct QkvRotary {
  const void* qkv = nullptr;                // [tokens][3 x hidden]: query, key, value, no bias yet
  NnType qkv_type = NnType::f32;            // f32, or out_type (the GEMM wrote 16 bits)
  const float* bias = nullptr;              // [3 x hidden]: query, key, value biases, or null
  const std::int32_t* positions = nullptr;  // [tokens]: position in its sequence (BOS = 0)
  // cos and sin of position x inv_freq[c], [table_positions][head_dim / 2];
  // every position must be below table_positions (the caller checks).
  const float* cos = nullptr;
  const float* sin = nullptr;
  std::size_t table_positions = 0;
  std::size_t tokens = 0, heads = 0, head_dim = 0;
  float query_scale = 1;  // head_dim^-0.5, applied before the rotation (as EsmSelfAttention)
  // false (BERT's absolute positions, added at the embedding): bias, scale
  // and the head-major split only; positions, cos and sin are not read.
  bool rotate = true;
  // Outputs, [heads][tokens][head_dim] each, as `out_type` (the attention
  // kernel's input type). `value` may be null: attention then reads the
  // values from `qkv` itself and adds their bias to its output
  // (attention.hpp), and this pass moves only queries and keys.
  void* query = nullptr;
  void* key = nullptr;
  void* value = nullptr;
  NnType out_type = NnType::f32;
};

// query = rotate((q + bq) x scale), key = rotate(k + bk), value = v + bv, with
// rotate(x)[c] = x[c] cos[c] - x[c + d/2] sin[c] (c < d/2) and
// x[c] cos[c] + x[c - d/2] sin[c] (c >= d/2): transformers' rotate-half form.
// head_dim must be a multiple of 4 and heads x head_dim at most 4096.
[[nodiscard]] Status qkv_bias_rotary(const QkvRotary& job, Stream& stream);

}  // namespace seqfuse::gpu::nn
