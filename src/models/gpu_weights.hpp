// The GPU engine's copy of the model: every tensor in one device allocation,
// the GEMM weights converted to the compute type once at load (the rest
// fp32), and the rotary cos/sin tables, grown as longer sequences come.
// GPU builds only.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "gpu/runtime.hpp"
#include "models/bert_weights.hpp"
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

// Lays host tensors out in one device allocation (each aligned for
// cuBLASLt), then uploads them: "typed" ones (GEMM weights) converted to the
// compute type on the device, the rest fp32. Every family's upload uses it.
class WeightPlacer {
 public:
  explicit WeightPlacer(nn::NnType type) : type_(type) {}
  // The tensor's byte offset in the allocation; `host` must outlive upload().
  std::size_t put(const std::vector<float>& host, bool typed);
  // Tensors back to back in one aligned region (a fused QKV weight or bias).
  std::size_t put_stacked(std::initializer_list<const std::vector<float>*> parts, bool typed);
  // Allocates, uploads on `stream` and waits, so the host tensors may be
  // freed afterwards. Throws seqfuse::Error when they do not fit `device_name`.
  [[nodiscard]] gpu::DeviceBuffer upload(const std::string& device_name, gpu::Stream& stream) const;

 private:
  struct Place {
    const std::vector<float>* host;
    std::size_t offset;
    bool typed;
  };
  nn::NnType type_;
  Layout layout_;
  std::vector<Place> places_;
};

// Uploads `model` on `stream` and waits for it, so the model may be freed
// afterwards. Throws seqfuse::Error when the weights do not fit
// `device_name`.
[[nodiscard]] DeviceWeights upload_weights(const EsmModel& model, nn::NnType type,
                                           const std::string& device_name, gpu::Stream& stream);

// A BERT layer's tensors on the device (post-LN: the norms follow the blocks).
struct BertDeviceLayer {
  const float *qkv_bias, *attention_output_bias, *attention_norm_weight, *attention_norm_bias;
  const float *output_bias, *output_norm_weight, *output_norm_bias;
  const void* intermediate_bias;  // as DeviceLayer's
  const void *qkv_weight, *attention_output_weight, *intermediate_weight, *output_weight;
};

struct BertDeviceWeights {
  gpu::DeviceBuffer buffer;
  const float *word_embeddings = nullptr, *position_embeddings = nullptr;
  const float* token_type_embedding = nullptr;
  const float *embedding_norm_weight = nullptr, *embedding_norm_bias = nullptr;
  std::vector<BertDeviceLayer> layers;
};

[[nodiscard]] BertDeviceWeights upload_weights(const BertModel& model, nn::NnType type,
                                               const std::string& device_name, gpu::Stream& stream);

// Makes every table hold `positions` positions.
void grow_rotary_tables(std::vector<RotaryTable>& tables, std::size_t head_dim,
                        std::size_t positions, gpu::Stream& stream);

}  // namespace seqfuse::models::esm_gpu
