#include "models/gpu_weights.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "core/error.hpp"
#include "core/gpu_status.hpp"
#include "gpu/error.hpp"
#include "gpu/nn/convert.hpp"

namespace seqfuse::models::esm_gpu {

std::size_t WeightPlacer::put(const std::vector<float>& host, bool typed) {
  return put_stacked({&host}, typed);
}

std::size_t WeightPlacer::put_stacked(std::initializer_list<const std::vector<float>*> parts,
                                      bool typed) {
  const std::size_t bytes_per = typed ? nn::element_bytes(type_) : sizeof(float);
  std::size_t bytes = 0;
  for (const auto* p : parts) bytes += p->size() * bytes_per;
  const std::size_t at = layout_.add(bytes);
  std::size_t offset = at;
  for (const auto* p : parts) {
    places_.push_back({p, offset, typed});
    offset += p->size() * bytes_per;
  }
  return at;
}

gpu::DeviceBuffer WeightPlacer::upload(const std::string& device_name, gpu::Stream& stream) const {
  const std::size_t f = sizeof(float);
  gpu::DeviceBuffer buffer;
  try {
    buffer = gpu::DeviceBuffer(layout_.total());
  } catch (const gpu::OutOfMemory&) {
    throw Error("the model's weights (" + mib(layout_.total()) + " as " + type_name(type_) +
                ") do not fit " + device_name + " (" + mib(gpu::free_device_memory()) +
                " free): use a smaller --dtype or --device cpu");
  }
  // 16-bit weights pass through a fp32 staging buffer and a convert kernel.
  std::size_t largest = 0;
  for (const Place& p : places_)
    if (p.typed && type_ != nn::NnType::f32) largest = std::max(largest, p.host->size());
  gpu::DeviceBuffer staging(largest * f);
  for (const Place& p : places_) {
    std::byte* dst = buffer.as<std::byte>() + p.offset;
    const std::size_t n = p.host->size();
    if (!p.typed || type_ == nn::NnType::f32) {
      gpu::copy_to_device(dst, p.host->data(), n * f, stream);
      continue;
    }
    gpu::copy_to_device(staging.data(), p.host->data(), n * f, stream);
    require_gpu_success(nn::convert_from_f32(staging.as<const float>(), n, dst, type_, stream),
                        "GPU embed: weight conversion");
  }
  stream.synchronize();  // the staging buffer and pageable sources go away
  return buffer;
}

DeviceWeights upload_weights(const EsmModel& model, nn::NnType type, const std::string& device_name,
                             gpu::Stream& stream) {
  WeightPlacer placer(type);
  const auto put = [&](const std::vector<float>& host, bool typed) {
    return placer.put(host, typed);
  };
  const auto put_stacked = [&](std::initializer_list<const std::vector<float>*> parts, bool typed) {
    return placer.put_stacked(parts, typed);
  };
  struct Offsets {
    std::size_t an_w, an_b, qkv_b, ao_b, fn_w, fn_b, i_b, o_b, qkv_w, ao_w, i_w, o_w;
  };
  std::vector<Offsets> offsets;
  const std::size_t word = put(model.word_embeddings, false);
  const std::size_t final_w = put(model.final_norm_weight, false);
  const std::size_t final_b = put(model.final_norm_bias, false);
  for (const EsmLayerWeights& w : model.layers) {
    Offsets o{};
    o.an_w = put(w.attention_norm_weight, false);
    o.an_b = put(w.attention_norm_bias, false);
    o.qkv_b = put_stacked({&w.query_bias, &w.key_bias, &w.value_bias}, false);
    o.ao_b = put(w.attention_output_bias, false);
    o.fn_w = put(w.ffn_norm_weight, false);
    o.fn_b = put(w.ffn_norm_bias, false);
    o.i_b = put(w.intermediate_bias, fused_gelu(type));
    o.o_b = put(w.output_bias, false);
    o.qkv_w = put_stacked({&w.query_weight, &w.key_weight, &w.value_weight}, true);
    o.ao_w = put(w.attention_output_weight, true);
    o.i_w = put(w.intermediate_weight, true);
    o.o_w = put(w.output_weight, true);
    offsets.push_back(o);
  }
  DeviceWeights weights;
  weights.buffer = placer.upload(device_name, stream);

  const auto wf = [&](std::size_t offset) {
    return reinterpret_cast<const float*>(weights.buffer.as<std::byte>() + offset);
  };
  const auto wt = [&](std::size_t offset) {
    return static_cast<const void*>(weights.buffer.as<std::byte>() + offset);
  };
  weights.word_embeddings = wf(word);
  weights.final_norm_weight = wf(final_w);
  weights.final_norm_bias = wf(final_b);
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Offsets& o = offsets[i];
    DeviceLayer d{};
    d.attention_norm_weight = wf(o.an_w);
    d.attention_norm_bias = wf(o.an_b);
    d.qkv_bias = wf(o.qkv_b);
    d.attention_output_bias = wf(o.ao_b);
    d.ffn_norm_weight = wf(o.fn_w);
    d.ffn_norm_bias = wf(o.fn_b);
    d.intermediate_bias = wt(o.i_b);
    d.output_bias = wf(o.o_b);
    d.qkv_weight = wt(o.qkv_w);
    d.attention_output_weight = wt(o.ao_w);
    d.intermediate_weight = wt(o.i_w);
    d.output_weight = wt(o.o_w);
    const auto& inv_freq = model.layers[i].rotary_inv_freq;
    std::size_t r = 0;
    while (r < weights.rotary.size() && weights.rotary[r].inv_freq != inv_freq) ++r;
    if (r == weights.rotary.size()) {
      weights.rotary.emplace_back();
      weights.rotary.back().inv_freq = inv_freq;
    }
    d.rotary = r;
    weights.layers.push_back(d);
  }
  return weights;
}

void grow_rotary_tables(std::vector<RotaryTable>& tables, std::size_t head_dim,
                        std::size_t positions, gpu::Stream& stream) {
  const std::size_t half = head_dim / 2;
  for (RotaryTable& table : tables) {
    if (table.positions >= positions) continue;
    std::vector<float> cos(positions * half), sin(positions * half);
    for (std::size_t p = 0; p < positions; ++p)
      for (std::size_t c = 0; c < half; ++c) {
        // As the CPU engine: the angle in double, exact to fp32 at any position.
        const double angle = static_cast<double>(p) * static_cast<double>(table.inv_freq[c]);
        cos[p * half + c] = static_cast<float>(std::cos(angle));
        sin[p * half + c] = static_cast<float>(std::sin(angle));
      }
    stream.synchronize();  // the old tables may still be in use
    table.cos = gpu::DeviceBuffer(cos.size() * sizeof(float));
    table.sin = gpu::DeviceBuffer(sin.size() * sizeof(float));
    gpu::copy_to_device(table.cos.data(), cos.data(), cos.size() * sizeof(float), stream);
    gpu::copy_to_device(table.sin.data(), sin.data(), sin.size() * sizeof(float), stream);
    stream.synchronize();  // pageable sources
    table.positions = positions;
  }
}

}  // namespace seqfuse::models::esm_gpu

namespace seqfuse::models::esm_gpu {

BertDeviceWeights upload_weights(const BertModel& model, nn::NnType type,
                                 const std::string& device_name, gpu::Stream& stream) {
  WeightPlacer placer(type);
  struct Offsets {
    std::size_t qkv_b, ao_b, an_w, an_b, i_b, o_b, on_w, on_b, qkv_w, ao_w, i_w, o_w;
  };
  std::vector<Offsets> offsets;
  const std::size_t word = placer.put(model.word_embeddings, false);
  const std::size_t position = placer.put(model.position_embeddings, false);
  const std::size_t token_type = placer.put(model.token_type_embedding, false);
  const std::size_t norm_w = placer.put(model.embedding_norm_weight, false);
  const std::size_t norm_b = placer.put(model.embedding_norm_bias, false);
  for (const BertLayerWeights& w : model.layers) {
    Offsets o{};
    o.qkv_b = placer.put_stacked({&w.query_bias, &w.key_bias, &w.value_bias}, false);
    o.ao_b = placer.put(w.attention_output_bias, false);
    o.an_w = placer.put(w.attention_norm_weight, false);
    o.an_b = placer.put(w.attention_norm_bias, false);
    o.i_b = placer.put(w.intermediate_bias, fused_gelu(type));
    o.o_b = placer.put(w.output_bias, false);
    o.on_w = placer.put(w.output_norm_weight, false);
    o.on_b = placer.put(w.output_norm_bias, false);
    o.qkv_w = placer.put_stacked({&w.query_weight, &w.key_weight, &w.value_weight}, true);
    o.ao_w = placer.put(w.attention_output_weight, true);
    o.i_w = placer.put(w.intermediate_weight, true);
    o.o_w = placer.put(w.output_weight, true);
    offsets.push_back(o);
  }
  BertDeviceWeights weights;
  weights.buffer = placer.upload(device_name, stream);
  const auto wf = [&](std::size_t offset) {
    return reinterpret_cast<const float*>(weights.buffer.as<std::byte>() + offset);
  };
  const auto wt = [&](std::size_t offset) {
    return static_cast<const void*>(weights.buffer.as<std::byte>() + offset);
  };
  weights.word_embeddings = wf(word);
  weights.position_embeddings = wf(position);
  weights.token_type_embedding = wf(token_type);
  weights.embedding_norm_weight = wf(norm_w);
  weights.embedding_norm_bias = wf(norm_b);
  for (const Offsets& o : offsets) {
    BertDeviceLayer d{};
    d.qkv_bias = wf(o.qkv_b);
    d.attention_output_bias = wf(o.ao_b);
    d.attention_norm_weight = wf(o.an_w);
    d.attention_norm_bias = wf(o.an_b);
    d.intermediate_bias = wt(o.i_b);
    d.output_bias = wf(o.o_b);
    d.output_norm_weight = wf(o.on_w);
    d.output_norm_bias = wf(o.on_b);
    d.qkv_weight = wt(o.qkv_w);
    d.attention_output_weight = wt(o.ao_w);
    d.intermediate_weight = wt(o.i_w);
    d.output_weight = wt(o.o_w);
    weights.layers.push_back(d);
  }
  return weights;
}

}  // namespace seqfuse::models::esm_gpu
