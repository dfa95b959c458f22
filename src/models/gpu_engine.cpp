#include "models/gpu_engine.hpp"

#include "core/error.hpp"
#include "core/report.hpp"

#if SEQFUSE_HAVE_GPU
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory_resource>
#include <string>
#include <vector>

#include "models/esm_config.hpp"
#include "models/pooling.hpp"
#include "gpu/nn/attention.hpp"
#include "gpu/nn/convert.hpp"
#include "gpu/nn/embedding.hpp"
#include "gpu/nn/gelu.hpp"
#include "gpu/nn/gemm.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "gpu/nn/pooling.hpp"
#include "gpu/nn/rotary.hpp"
#include "gpu/error.hpp"
#include "gpu/runtime.hpp"
#endif

namespace seqfuse::models {

#if SEQFUSE_HAVE_GPU

namespace {

namespace nn = gpu::nn;

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (std::size_t{1} << 20) - 1) >> 20) + " MiB";
}

void require(gpu::Status status, const char* op) {
  if (status != gpu::Status::kSuccess)
    throw Error(std::string("GPU embed: ") + op + " refused its input (" + gpu::to_string(status) +
                ")");
}

nn::NnType nn_type(ComputeType compute) {
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

const char* type_name(nn::NnType type) {
  return type == nn::NnType::bf16 ? "bf16" : type == nn::NnType::f16 ? "fp16" : "fp32";
}

// Whether the up-projection applies bias and GELU in its GEMM (cuBLASLt's
// epilogue, the tanh form of GELU) instead of a GELU kernel after it (ESM's
// exact erf form). Only for 16-bit compute: there the fused form saves a
// read and a write of the widest activation (13 % of the 8M model's GPU time
// went to the GELU kernel) and its rounding of the pre-activation to 16 bits,
// and the tanh form's error (at most 4.8e-4) is of the size of that rounding.
// fp32, the exact path, keeps the erf form.
bool fused_gelu(nn::NnType type) {
  return type != nn::NnType::f32;
}

// The four GEMMs of every layer, as forward() runs them (pointers left
// null, the bias marked by a placeholder): what warm_up_gpu_engine has
// cuBLASLt choose algorithms for. Keep in step with forward().
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

// Where each activation lives in the arena, for a capacity of `tokens`.
struct ActivationLayout {
  std::size_t residual, normed, qkv, query, key, value, context, inter, final;
  // Per-batch metadata, uploaded in one copy from a pinned mirror.
  std::size_t ids, positions, scales, offsets, tiles, meta_begin, meta_end;
  std::size_t output;  // readout results (grown on demand past this first size)
  std::size_t total;
  std::size_t max_sequences, max_tiles;
};

ActivationLayout lay_out(std::size_t tokens, std::size_t hidden, std::size_t intermediate,
                         nn::NnType type) {
  const std::size_t e = nn::element_bytes(type), f = sizeof(float);
  ActivationLayout a{};
  Layout l;
  a.residual = l.add(tokens * hidden * f);
  a.normed = l.add(tokens * hidden * e);
  // The QKV and up-projection GEMMs write the compute type: their readers
  // (rotary, GELU) take 16 bits as HF's bf16 pass does, at half the bytes.
  a.qkv = l.add(tokens * 3 * hidden * e);
  a.query = l.add(tokens * hidden * e);  // attention's inputs, in the compute type
  a.key = l.add(tokens * hidden * e);
  a.value = l.add(tokens * hidden * e);
  a.context = l.add(tokens * hidden * e);
  a.inter = l.add(tokens * intermediate * e);  // GELU runs in place
  a.final = l.add(tokens * hidden * f);
  // Every sequence holds at least <cls> and <eos>.
  a.max_sequences = tokens / 2 + 1;
  a.max_tiles = a.max_sequences + tokens / nn::kAttentionQueryTile + 1;
  a.meta_begin = l.total();
  a.ids = l.add(tokens * sizeof(std::int32_t));
  a.positions = l.add(tokens * sizeof(std::int32_t));
  a.scales = l.add(tokens * sizeof(double));
  a.offsets = l.add((a.max_sequences + 1) * sizeof(std::int32_t));
  a.tiles = l.add(a.max_tiles * sizeof(nn::AttentionTile));
  a.meta_end = l.total();
  a.output = l.add(tokens * hidden * f);  // one layer of --pool none
  a.total = l.total();
  return a;
}

struct DeviceLayer {
  const float *attention_norm_weight, *attention_norm_bias, *qkv_bias, *attention_output_bias;
  const float *ffn_norm_weight, *ffn_norm_bias, *output_bias;
  // fp32, or the compute type where the up-projection's GEMM adds it (fused_gelu).
  const void* intermediate_bias;
  const void *qkv_weight, *attention_output_weight, *intermediate_weight, *output_weight;
  std::size_t rotary;  // index into rotary_
};

class GpuEsmEngine final : public EmbeddingEngine {
 public:
  GpuEsmEngine(const EsmModel& model, const GpuEngineOptions& options)
      : device_(select_device(options.device)),
        options_(options),
        config_(model.config),
        type_(nn_type(options.compute)),
        hidden_(static_cast<std::size_t>(model.config.hidden_size)),
        heads_(static_cast<std::size_t>(model.config.num_heads)),
        head_dim_(static_cast<std::size_t>(model.config.head_dim())),
        intermediate_(static_cast<std::size_t>(model.config.intermediate_size)),
        gemm_(options.tiled_gemm ? nn::GemmBackend::tiled : nn::GemmBackend::automatic),
        meta_host_(gpu::pinned_resource()),
        output_host_(gpu::pinned_resource()) {
    if (intermediate_ % 2 != 0)
      throw Error("the GPU engine takes an even intermediate_size; " + model.folder + " has " +
                  std::to_string(intermediate_) + ": use --device cpu");
    if (!nn::attention_head_dim_supported(head_dim_) || head_dim_ * heads_ != hidden_)
      throw Error("the GPU engine's attention is built for head sizes 16, 24, 32 and 64; " +
                  model.folder + " has " + std::to_string(hidden_) + " / " +
                  std::to_string(heads_) + " heads: use --device cpu");
    trace("embed: engine: device, stream and GEMM handle ready");
    upload_weights(model);
    trace("embed: engine: weights uploaded");
  }

  [[nodiscard]] std::string name() const override { return "gpu:" + std::to_string(device_); }

  // 65,536 tokens keep every multiprocessor busy through each op (the 8M
  // model's forward pass in bf16 on an H100: 4,096 ran at half its speed,
  // 16,384 8 % slower; bench/results/2026-11-23-nvidia-h100-embed-bench1.md),
  // as far as half the free memory holds them (a 3B model needs ~10 GB).
  [[nodiscard]] std::size_t preferred_batch_tokens() const override {
    constexpr std::size_t kMost = 65536, kLeast = 4096;
    const std::size_t per_token = lay_out(kMost, hidden_, intermediate_, type_).total / kMost + 1;
    const std::size_t fits = gpu::free_device_memory() / 2 / per_token;
    return std::clamp(fits / 1024 * 1024, kLeast, kMost);
  }

  void reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) override {
    grow_rotary_tables(std::max<std::size_t>(longest_sequence_tokens, 1));
    batch_tokens = std::max(batch_tokens, longest_sequence_tokens);
    if (batch_tokens <= capacity_) return;
    const ActivationLayout layout = lay_out(batch_tokens, hidden_, intermediate_, type_);
    arena_ = gpu::DeviceBuffer();  // the old buffers' memory counts as free
    output_buffer_ = gpu::DeviceBuffer();
    capacity_ = 0;
    const std::size_t free_bytes = gpu::free_device_memory();
    const auto refuse = [&] {
      return Error("a batch of " + std::to_string(batch_tokens) + " tokens (longest sequence " +
                   std::to_string(longest_sequence_tokens) + ") needs " + mib(layout.total) +
                   " of GPU memory for activations on " + name() + ", which has " +
                   mib(free_bytes) + " free: lower --toks-per-batch or --max-length");
    };
    if (layout.total > free_bytes) throw refuse();
    try {
      arena_ = gpu::DeviceBuffer(layout.total);
    } catch (const gpu::OutOfMemory&) {
      throw refuse();
    }
    layout_ = layout;
    capacity_ = batch_tokens;
    output_bytes_ = layout.total - layout.output;
    meta_host_.resize(layout.meta_end - layout.meta_begin);
  }

  void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout& readout,
             std::span<Embedding> out) override {
    if (out.size() != sequences.size())
      throw Error("internal: embed() got " + std::to_string(out.size()) + " outputs for " +
                  std::to_string(sequences.size()) + " sequences");
    if (sequences.empty()) return;
    const int num_layers = config_.num_layers;
    for (int layer : readout.layers)
      if (layer < 0 || layer > num_layers)
        throw Error("internal: hidden state " + std::to_string(layer) + " of a " +
                    std::to_string(num_layers) + "-layer model");
    std::size_t tokens = 0, longest = 0;
    for (const auto& s : sequences) {
      if (s.size() < 2)
        throw Error("internal: a sequence of " + std::to_string(s.size()) +
                    " tokens; the engine takes <cls> ... <eos>");
      for (std::int32_t id : s)
        if (id < 0 || id >= config_.vocab_size)
          throw Error("internal: token id " + std::to_string(id) + " outside the vocabulary");
      tokens += s.size();
      longest = std::max(longest, s.size());
    }
    reserve(longest, tokens);
    upload_batch(sequences);
    if (first_forward_) trace("embed: first batch: arena ready, metadata queued");

    const std::size_t slots = readout.layers.size();
    const std::size_t rows_total = readout.pooling == Pooling::none ? tokens : sequences.size();
    const std::size_t output_floats = slots * rows_total * hidden_;
    grow_output(output_floats * sizeof(float));
    if (options_.poison_buffers) {
      gpu::fill_device(arena_.data(), 0xff, layout_.meta_begin, stream_);
      gpu::fill_device(output(), 0xff, output_bytes_, stream_);
    }

    forward(sequences.size(), tokens, readout, rows_total);
    trace("embed: batch queued on the device");

    if (output_floats > 0) {
      output_host_.resize(output_floats);
      gpu::copy_to_host(output_host_.data(), output(), output_floats * sizeof(float), stream_);
    }
    stream_.synchronize();
    trace("embed: batch done on the device");
    std::size_t row = 0;
    for (std::size_t s = 0; s < sequences.size(); ++s) {
      const std::size_t rows = pooled_rows(readout.pooling, sequences[s].size());
      out[s].rows = rows;
      out[s].values.resize(slots * rows * hidden_);
      for (std::size_t slot = 0; slot < slots; ++slot)
        std::memcpy(out[s].values.data() + slot * rows * hidden_,
                    output_host_.data() + (slot * rows_total + row) * hidden_,
                    rows * hidden_ * sizeof(float));
      row += rows;
    }
  }

 private:
  // cos and sin tables of one inv_freq, [positions][head_dim / 2] on the device.
  struct RotaryTable {
    std::vector<float> inv_freq;
    std::size_t positions = 0;
    gpu::DeviceBuffer cos, sin;
  };

  static int select_device(int index) {
    gpu::use_device(index);
    return index;
  }

  template <class T = std::byte>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(arena_.as<std::byte>() + offset);
  }
  [[nodiscard]] float* output() const {
    return output_buffer_.size() ? output_buffer_.as<float>() : at<float>(layout_.output);
  }

  void grow_output(std::size_t bytes) {
    if (bytes <= output_bytes_) return;
    output_buffer_ = gpu::DeviceBuffer();
    output_buffer_ = gpu::DeviceBuffer(bytes);
    output_bytes_ = bytes;
  }

  void upload_weights(const EsmModel& model) {
    const std::size_t e = nn::element_bytes(type_), f = sizeof(float);
    // Lay out every tensor, then allocate once.
    struct Place {
      const std::vector<float>* host;
      std::size_t offset;
      bool typed;  // converted to the compute type (GEMM weights); fp32 otherwise
    };
    std::vector<Place> places;
    Layout l;
    const auto put = [&](const std::vector<float>& host, bool typed) {
      const std::size_t at = l.add(host.size() * (typed ? e : f));
      places.push_back({&host, at, typed});
      return at;
    };
    // Matrices or vectors uploaded back to back into one aligned region.
    const auto put_stacked = [&](std::initializer_list<const std::vector<float>*> parts,
                                 bool typed) {
      std::size_t bytes = 0;
      for (const auto* p : parts) bytes += p->size() * (typed ? e : f);
      const std::size_t at = l.add(bytes);
      std::size_t offset = at;
      for (const auto* p : parts) {
        places.push_back({p, offset, typed});
        offset += p->size() * (typed ? e : f);
      }
      return at;
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
      o.i_b = put(w.intermediate_bias, fused_gelu(type_));
      o.o_b = put(w.output_bias, false);
      o.qkv_w = put_stacked({&w.query_weight, &w.key_weight, &w.value_weight}, true);
      o.ao_w = put(w.attention_output_weight, true);
      o.i_w = put(w.intermediate_weight, true);
      o.o_w = put(w.output_weight, true);
      offsets.push_back(o);
    }
    try {
      weights_ = gpu::DeviceBuffer(l.total());
    } catch (const gpu::OutOfMemory&) {
      throw Error("the model's weights (" + mib(l.total()) + " as " + type_name(type_) +
                  ") do not fit " + name() + " (" + mib(gpu::free_device_memory()) +
                  " free): use a smaller --dtype or --device cpu");
    }
    // 16-bit weights pass through a fp32 staging buffer and a convert kernel.
    std::size_t largest = 0;
    for (const Place& p : places)
      if (p.typed && type_ != nn::NnType::f32) largest = std::max(largest, p.host->size());
    gpu::DeviceBuffer staging(largest * f);
    for (const Place& p : places) {
      std::byte* dst = weights_.as<std::byte>() + p.offset;
      const std::size_t n = p.host->size();
      if (!p.typed || type_ == nn::NnType::f32) {
        gpu::copy_to_device(dst, p.host->data(), n * f, stream_);
        continue;
      }
      gpu::copy_to_device(staging.data(), p.host->data(), n * f, stream_);
      require(nn::convert_from_f32(staging.as<const float>(), n, dst, type_, stream_),
              "weight conversion");
    }
    stream_.synchronize();  // the staging buffer and pageable sources go away

    const auto wf = [&](std::size_t offset) {
      return reinterpret_cast<const float*>(weights_.as<std::byte>() + offset);
    };
    const auto wt = [&](std::size_t offset) {
      return static_cast<const void*>(weights_.as<std::byte>() + offset);
    };
    word_embeddings_ = wf(word);
    final_norm_weight_ = wf(final_w);
    final_norm_bias_ = wf(final_b);
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
      while (r < rotary_.size() && rotary_[r].inv_freq != inv_freq) ++r;
      if (r == rotary_.size()) {
        rotary_.emplace_back();
        rotary_.back().inv_freq = inv_freq;
      }
      d.rotary = r;
      layers_.push_back(d);
    }
  }

  void grow_rotary_tables(std::size_t positions) {
    const std::size_t half = head_dim_ / 2;
    for (RotaryTable& table : rotary_) {
      if (table.positions >= positions) continue;
      std::vector<float> cos(positions * half), sin(positions * half);
      for (std::size_t p = 0; p < positions; ++p)
        for (std::size_t c = 0; c < half; ++c) {
          // As the CPU engine: the angle in double, exact to fp32 at any position.
          const double angle = static_cast<double>(p) * static_cast<double>(table.inv_freq[c]);
          cos[p * half + c] = static_cast<float>(std::cos(angle));
          sin[p * half + c] = static_cast<float>(std::sin(angle));
        }
      stream_.synchronize();  // the old tables may still be in use
      table.cos = gpu::DeviceBuffer(cos.size() * sizeof(float));
      table.sin = gpu::DeviceBuffer(sin.size() * sizeof(float));
      gpu::copy_to_device(table.cos.data(), cos.data(), cos.size() * sizeof(float), stream_);
      gpu::copy_to_device(table.sin.data(), sin.data(), sin.size() * sizeof(float), stream_);
      stream_.synchronize();  // pageable sources
      table.positions = positions;
    }
  }

  // Token ids, positions, token-dropout scales, sequence offsets and attention
  // tiles, in one copy from the pinned mirror of the metadata area.
  void upload_batch(std::span<const std::span<const std::int32_t>> sequences) {
    std::byte* host = meta_host_.data();
    const auto host_at = [&](std::size_t offset) { return host + (offset - layout_.meta_begin); };
    auto* ids = reinterpret_cast<std::int32_t*>(host_at(layout_.ids));
    auto* positions = reinterpret_cast<std::int32_t*>(host_at(layout_.positions));
    auto* scales = reinterpret_cast<double*>(host_at(layout_.scales));
    auto* offsets = reinterpret_cast<std::int32_t*>(host_at(layout_.offsets));
    tiles_.clear();
    std::size_t t = 0;
    offsets[0] = 0;
    for (std::size_t s = 0; s < sequences.size(); ++s) {
      const auto& seq = sequences[s];
      // Token dropout at inference (EsmEmbeddings), as the CPU engine.
      double scale = 1.0;
      if (config_.token_dropout) {
        const auto masks = std::count(seq.begin(), seq.end(), config_.mask_token_id);
        scale = (1.0 - 0.15 * 0.8) /
                (1.0 - static_cast<double>(masks) / static_cast<double>(seq.size()));
      }
      nn::append_attention_tiles(t, seq.size(), tiles_);
      for (std::size_t i = 0; i < seq.size(); ++i, ++t) {
        ids[t] = seq[i];
        positions[t] = static_cast<std::int32_t>(i);
        scales[t] = config_.token_dropout && seq[i] == config_.mask_token_id ? 0.0 : scale;
      }
      offsets[s + 1] = static_cast<std::int32_t>(t);
    }
    std::memcpy(host_at(layout_.tiles), tiles_.data(), tiles_.size() * sizeof(nn::AttentionTile));
    gpu::copy_to_device(at(layout_.meta_begin), host, layout_.meta_end - layout_.meta_begin,
                        stream_);
  }

  // require() for the forward pass's ops; with SEQFUSE_TRACE, the host time
  // at which each op of the first batch's first layer was queued (first
  // launches load kernels and pick GEMM algorithms: that cost shows here).
  void queued(gpu::Status status, const char* op) {
    require(status, op);
    if (trace_ops_) trace(std::string("embed: first batch: ") + op + " queued");
  }

  // y [rows][out] = x w^T, with the weights' compute type; callers add the
  // bias and options.
  nn::Linear linear(const void* x, const void* w, std::size_t in, std::size_t out, void* y,
                    nn::NnType y_type, std::size_t rows) const {
    nn::Linear job;
    job.x = x;
    job.w = w;
    job.type = type_;
    job.rows = rows;
    job.in = in;
    job.out = out;
    job.y = y;
    job.y_type = y_type;
    return job;
  }
  void run(const nn::Linear& job) { queued(gemm_.run(job, stream_), "GEMM"); }
  // The residual stream adds a block's output in its last GEMM (y += ...).
  void run_into_residual(nn::Linear job, const float* bias) {
    job.bias = bias;
    job.accumulate = true;
    run(job);
  }

  // Pools `states` (hidden state `index`) into every readout slot asking for it.
  void capture(const float* states, int index, const Readout& readout, std::size_t sequences,
               std::size_t tokens, std::size_t rows_total) {
    const nn::PoolKind kind = readout.pooling == Pooling::mean  ? nn::PoolKind::mean
                              : readout.pooling == Pooling::bos ? nn::PoolKind::bos
                                                                : nn::PoolKind::none;
    for (std::size_t slot = 0; slot < readout.layers.size(); ++slot) {
      if (readout.layers[slot] != index) continue;
      require(nn::pool_sequences(kind, states, at<const std::int32_t>(layout_.offsets), sequences,
                                 tokens, hidden_, output() + slot * rows_total * hidden_, stream_),
              "pooling");
    }
  }

  void forward(std::size_t sequences, std::size_t tokens, const Readout& readout,
               std::size_t rows_total) {
    const std::size_t h = hidden_;
    const double eps = config_.layer_norm_eps;
    float* residual = at<float>(layout_.residual);
    void* normed = at(layout_.normed);
    void* qkv = at(layout_.qkv);
    void* context = at(layout_.context);
    void* inter = at(layout_.inter);

    trace_ops_ = first_forward_;
    queued(nn::embed_tokens(at<const std::int32_t>(layout_.ids), at<const double>(layout_.scales),
                            tokens, word_embeddings_, h, residual, stream_),
           "embedding");
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      trace_ops_ = first_forward_ && i == 0;
      const DeviceLayer& w = layers_[i];
      // Each block's output joined the residual stream in its last GEMM
      // (accumulate), so the LayerNorms only read it.
      queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.attention_norm_weight,
                                w.attention_norm_bias, eps, normed, type_, stream_),
             "LayerNorm");
      capture(residual, static_cast<int>(i), readout, sequences, tokens, rows_total);
      run(linear(normed, w.qkv_weight, h, 3 * h, qkv, type_, tokens));
      const RotaryTable& table = rotary_[w.rotary];
      nn::QkvRotary rope;
      rope.qkv = qkv;
      rope.qkv_type = type_;
      rope.bias = w.qkv_bias;
      rope.positions = at<const std::int32_t>(layout_.positions);
      rope.cos = table.cos.as<const float>();
      rope.sin = table.sin.as<const float>();
      rope.table_positions = table.positions;
      rope.tokens = tokens;
      rope.heads = heads_;
      rope.head_dim = head_dim_;
      rope.query_scale = 1.0f / std::sqrt(static_cast<float>(head_dim_));
      rope.query = at(layout_.query);
      rope.key = at(layout_.key);
      rope.value = at(layout_.value);
      rope.out_type = type_;
      queued(nn::qkv_bias_rotary(rope, stream_), "rotary");
      nn::VarlenAttention attention;
      attention.query = rope.query;
      attention.key = rope.key;
      attention.value = rope.value;
      attention.in_type = type_;
      attention.tiles = at<const nn::AttentionTile>(layout_.tiles);
      attention.tile_count = tiles_.size();
      attention.tokens = tokens;
      attention.heads = heads_;
      attention.head_dim = head_dim_;
      attention.out = context;
      attention.out_type = type_;
      queued(nn::varlen_attention(attention, stream_), "attention");
      run_into_residual(
          linear(context, w.attention_output_weight, h, h, residual, nn::NnType::f32, tokens),
          w.attention_output_bias);
      queued(nn::add_layer_norm(residual, nullptr, tokens, h, w.ffn_norm_weight, w.ffn_norm_bias,
                                eps, normed, type_, stream_),
             "LayerNorm");
      nn::Linear up = linear(normed, w.intermediate_weight, h, intermediate_, inter, type_, tokens);
      if (fused_gelu(type_)) {
        up.bias = w.intermediate_bias;
        up.bias_type = type_;
        up.activation = nn::Activation::gelu_tanh;
        run(up);
      } else {
        run(up);
        queued(nn::bias_gelu(inter, type_, static_cast<const float*>(w.intermediate_bias), tokens,
                             intermediate_, inter, type_, stream_),
               "GELU");
      }
      run_into_residual(
          linear(inter, w.output_weight, intermediate_, h, residual, nn::NnType::f32, tokens),
          w.output_bias);
    }
    float* final_states = at<float>(layout_.final);
    queued(nn::add_layer_norm(residual, nullptr, tokens, h, final_norm_weight_, final_norm_bias_,
                              eps, final_states, nn::NnType::f32, stream_),
           "final LayerNorm");
    capture(final_states, static_cast<int>(layers_.size()), readout, sequences, tokens, rows_total);
    trace_ops_ = first_forward_ = false;
  }

  int device_;
  GpuEngineOptions options_;
  EsmConfig config_;
  nn::NnType type_;
  std::size_t hidden_, heads_, head_dim_, intermediate_;
  gpu::Stream stream_;
  nn::LinearGemm gemm_;

  gpu::DeviceBuffer weights_;
  const float* word_embeddings_ = nullptr;
  const float *final_norm_weight_ = nullptr, *final_norm_bias_ = nullptr;
  std::vector<DeviceLayer> layers_;
  std::vector<RotaryTable> rotary_;

  std::size_t capacity_ = 0;  // tokens the arena holds
  ActivationLayout layout_{};
  gpu::DeviceBuffer arena_;
  gpu::DeviceBuffer output_buffer_;  // when the results outgrow the arena's output area
  std::size_t output_bytes_ = 0;
  std::vector<nn::AttentionTile> tiles_;
  bool first_forward_ = true, trace_ops_ = false;
  std::pmr::vector<std::byte> meta_host_;
  std::pmr::vector<float> output_host_;
};

}  // namespace

bool gpu_engine_built() noexcept {
  return true;
}

void warm_up_gpu_engine(const std::string& model_dir, int device, ComputeType compute) noexcept {
  try {
    const EsmConfig config = load_esm_config(std::filesystem::path(model_dir) / "config.json");
    gpu::use_device(std::max(device, 0));
    const auto shapes =
        layer_gemm_shapes(static_cast<std::size_t>(config.hidden_size),
                          static_cast<std::size_t>(config.intermediate_size), nn_type(compute));
    nn::warm_up_gemms(shapes);
    trace("embed: GEMM algorithms chosen ahead");
  } catch (...) {  // reported again, with context, by the engine
  }
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const EsmModel& model,
                                                 const GpuEngineOptions& options) {
  return std::make_unique<GpuEsmEngine>(model, options);
}

#else  // no GPU backend in this build

bool gpu_engine_built() noexcept {
  return false;
}

void warm_up_gpu_engine(const std::string&, int, ComputeType) noexcept {}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const EsmModel&, const GpuEngineOptions&) {
  throw Error("this seqfuse was built without GPU support (CUDA or HIP); use --device cpu");
}

#endif

}  // namespace seqfuse::models
