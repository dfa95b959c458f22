// The GPU engine's copy of a model: every tensor in one device allocation
// (WeightPlacer), the GEMM weights converted to the compute type once at load
// (the rest fp32); the blocks every family's layers hold (attention, feed
// forward: what ForwardPass's steps read); and rotary cos/sin tables, grown
// as longer sequences come. Each family lays out its own weights with these
// (gpu_esm_family.cpp, gpu_bert_family.cpp). GPU builds only.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "gpu/runtime.hpp"
#include "models/gpu_compute.hpp"

namespace seqfuse::models::gpu_embed {

// A LayerNorm's tensors on the device, [hidden] fp32 each.
struct NormWeights {
  const float* weight = nullptr;
  const float* bias = nullptr;
};

// One attention block's tensors on the device (inner: heads x head_dim, the
// hidden size but for T5).
struct AttentionWeights {
  const void* qkv_weight = nullptr;     // [3 inner][hidden], compute type: query, key, value
  const float* qkv_bias = nullptr;      // [3 inner]
  const void* output_weight = nullptr;  // [hidden][inner], compute type
  const float* output_bias = nullptr;   // [hidden], or null (T5)
};

// One feed-forward block's tensors on the device (bias + GELU between).
struct FeedForwardWeights {
  const void* up_weight = nullptr;  // [intermediate][hidden], compute type
  // fp32, or the compute type where the up-projection's GEMM adds it (fused_gelu).
  const void* up_bias = nullptr;
  const void* down_weight = nullptr;  // [hidden][intermediate], compute type
  const float* down_bias = nullptr;   // [hidden], or null (T5)
  // T5's gated GELU: wi_1, the linear side [intermediate][hidden] (up_weight
  // is wi_0, the GELU side); null otherwise.
  const void* gate_weight = nullptr;
};

// Lays host tensors out in one device allocation (each aligned for
// cuBLASLt), then uploads them: "typed" ones (GEMM weights) in the compute
// type, the rest fp32. Each put names the device pointer upload() sets to
// the tensor's copy; it, and the host tensor, must stay where they are until
// upload() returns.
class WeightPlacer {
 public:
  explicit WeightPlacer(nn::NnType type) : type_(type) {}

  void put(const std::vector<float>& host, const float*& device);
  void put_norm(const std::vector<float>& weight, const std::vector<float>& bias,
                NormWeights& device) {
    put(weight, device.weight);
    put(bias, device.bias);
  }
  // Tensors back to back in one aligned region (a fused QKV bias).
  void put_stacked(std::initializer_list<const std::vector<float>*> parts, const float*& device);
  // In the compute type (GEMM weights).
  void put_typed(const std::vector<float>& host, const void*& device);
  void put_typed_stacked(std::initializer_list<const std::vector<float>*> parts,
                         const void*& device);

  // The two blocks of a BERT-style layer (query, key, value, attention
  // output, intermediate and output tensors with their biases, as ESM-2's
  // and BERT's host layers name them).
  template <class HostLayer>
  void put_attention(const HostLayer& w, AttentionWeights& device) {
    put_typed_stacked({&w.query_weight, &w.key_weight, &w.value_weight}, device.qkv_weight);
    put_stacked({&w.query_bias, &w.key_bias, &w.value_bias}, device.qkv_bias);
    put_typed(w.attention_output_weight, device.output_weight);
    put(w.attention_output_bias, device.output_bias);
  }
  template <class HostLayer>
  void put_feed_forward(const HostLayer& w, FeedForwardWeights& device) {
    put_typed(w.intermediate_weight, device.up_weight);
    add({&w.intermediate_bias}, fused_gelu(type_), nullptr, &device.up_bias);
    put_typed(w.output_weight, device.down_weight);
    put(w.output_bias, device.down_bias);
  }

  // Allocates, uploads on `stream`, waits (so the host tensors may be freed
  // afterwards) and sets every named device pointer. The allocation's image
  // is made on the host, `host_threads` threads converting the typed
  // tensors (to_bf16 / to_f16: the device's conversions, bit for bit), and
  // streamed through pinned blocks (gpu::copy_produced_to_device): a 3B
  // model's 11 GB of fp32 took 2.1 s as per-tensor pageable copies and
  // device conversions (run 41f). Throws seqfuse::Error when the tensors do
  // not fit `device_name`.
  [[nodiscard]] gpu::DeviceBuffer upload(const std::string& device_name, gpu::Stream& stream,
                                         unsigned host_threads);

 private:
  struct Place {
    const std::vector<float>* host;
    std::size_t offset;
    bool typed;
  };
  // Where upload() writes a region's address: one of the two is set.
  struct Target {
    std::size_t offset;
    const float** as_float;
    const void** as_typed;
  };
  void add(std::initializer_list<const std::vector<float>*> parts, bool typed,
           const float** as_float, const void** as_typed);
  // Bytes [begin, end) of the allocation's image into `out` (zeros between
  // tensors); begin and end are multiples of 4, so no element is split.
  void write_image(std::size_t begin, std::size_t end, std::byte* out) const;

  nn::NnType type_;
  Layout layout_;
  std::vector<Place> places_;
  std::vector<Target> targets_;
};

// T5's relative position bias by offset on the device, [heads][2 tokens - 1]
// fp32 (t5_math.hpp's t5_position_bias), for sequences of up to `tokens`.
struct PositionBiasTable {
  std::size_t tokens = 0;
  gpu::DeviceBuffer table;
};

// cos and sin of one inv_freq, [positions][head_dim / 2] on the device.
struct RotaryTable {
  std::vector<float> inv_freq;
  std::size_t positions = 0;
  gpu::DeviceBuffer cos, sin;
};

// The index of `inv_freq`'s table in `tables`, adding one (empty until
// grow_rotary_tables) the first time: layers share tables.
[[nodiscard]] std::size_t rotary_table_for(const std::vector<float>& inv_freq,
                                           std::vector<RotaryTable>& tables);

// Makes every table hold `positions` positions.
void grow_rotary_tables(std::vector<RotaryTable>& tables, std::size_t head_dim,
                        std::size_t positions, gpu::Stream& stream);

}  // namespace seqfuse::models::gpu_embed
