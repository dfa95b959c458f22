// The GPU engine's copy of the model: every tensor in one device allocation,
// the GEMM weights converted to the compute type once at load (the rest
// fp32), and the rotary cos/sin tables, grown as longer sequences come.
// GPU builds only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu/runtime.hpp"
#include "models/esm_weights.hpp"
#include "models/gpu_compute.hpp"

namespace seqfuse::models::esm_gpu {

// One layer's tensors on the device.
struct DeviceLayer {
  const float *attention_norm_weight, *attention_norm_bias, *qkv_bias, *attention_output_bias;
  const float *ffn_norm_weight, *ffn_norm_bias, *output_bias;
  // fp32, or the compute type where the up-projection's GEMM adds it (fused_gelu).
  const void* intermediate_bias;
  const void *qkv_weight, *attention_output_weight, *intermediate_weight, *output_weight;
  std::size_t rotary;  // index into DeviceWeights::rotary
};

// cos and sin tables of one inv_freq, [positions][head_dim / 2] on the device.
struct RotaryTable {
  std::vector<float> inv_freq;
  std::size_t positions = 0;
  gpu::DeviceBuffer cos, sin;
};

struct DeviceWeights {
  gpu::DeviceBuffer buffer;  // every tensor below points into it
  const float* word_embeddings = nullptr;
  const float *final_norm_weight = nullptr, *final_norm_bias = nullptr;
  std::vector<DeviceLayer> layers;
  // One table per distinct inv_freq (layers share them); empty until
  // grow_rotary_tables.
  std::vector<RotaryTable> rotary;
};

// Uploads `model` on `stream` and waits for it, so the model may be freed
// afterwards. Throws seqfuse::Error when the weights do not fit
// `device_name`.
[[nodiscard]] DeviceWeights upload_weights(const EsmModel& model, nn::NnType type,
                                           const std::string& device_name, gpu::Stream& stream);

// Makes every table hold `positions` positions.
void grow_rotary_tables(std::vector<RotaryTable>& tables, std::size_t head_dim,
                        std::size_t positions, gpu::Stream& stream);

}  // namespace seqfuse::models::esm_gpu
