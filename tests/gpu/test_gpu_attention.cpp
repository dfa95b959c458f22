// gpu/nn attention on the device against a float64 host reference: both
// kernels (tensor cores and CUDA cores), every head size, fp32 / bf16 /
// fp16 inputs, fresh random sequences of awkward lengths (1, a tile, a tile
// +- 1, long) packed back to back, the output poisoned with NaN first. The
// reference takes the very inputs the device got (already rounded to the
// input type), so what is measured is the kernel's own error: P rounded to
// 16 bits for P V (tensor cores) and the output rounding. A [bench] case
// times the two kernels on an ESM-2 8M-shaped batch. T5's relative position
// bias (a random [heads][2 n - 1] table, n past the longest sequence) is
// checked the same way, head size 128 (ProtT5-XL) with and without it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "../unit/test_data.hpp"
#include "gpu/nn/attention.hpp"
#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "typed_values.hpp"

namespace gpu = seqfuse::gpu;
namespace nn = seqfuse::gpu::nn;
using seqfuse::test::make_typed;
using seqfuse::test::read_typed;
using seqfuse::test::type_name;
using seqfuse::test::Typed;

namespace {

// One packed batch on the host and the device.
struct Batch {
  std::vector<std::size_t> lengths, begins;
  std::size_t tokens = 0, heads = 0, head_dim = 0;
  nn::NnType type = nn::NnType::f32;
  Typed query, key, value;  // [heads][tokens][head_dim]
  std::vector<nn::AttentionTile> tiles;
  // With a position bias (T5): [heads][2 bias_tokens - 1] by offset.
  std::vector<float> bias;
  std::size_t bias_tokens = 0;
  gpu::DeviceBuffer d_query, d_key, d_value, d_tiles, d_out, d_bias;
  // The same operands as the fused QKV GEMM writes them, [tokens][query,
  // key, value][heads][head_dim], with a value bias added to the output
  // (VarlenAttention's strided operands).
  std::vector<float> value_bias;
  gpu::DeviceBuffer d_qkv, d_value_bias;

  Batch(std::vector<std::size_t> lengths_, std::size_t heads_, std::size_t head_dim_,
        nn::NnType type_, std::mt19937_64& rng, gpu::Stream& stream, bool with_bias = false)
      : lengths(std::move(lengths_)), heads(heads_), head_dim(head_dim_), type(type_) {
    for (const std::size_t n : lengths) {
      begins.push_back(tokens);
      nn::append_attention_tiles(tokens, n, tiles);
      tokens += n;
    }
    const std::size_t n = heads * tokens * head_dim;
    // Scores of a few units: softmax neither flat nor one-hot.
    query = make_typed(type, n, rng, 1.5);
    key = make_typed(type, n, rng, 1.5);
    value = make_typed(type, n, rng, 2.0);
    const auto upload = [&](gpu::DeviceBuffer& buffer, const std::vector<std::uint8_t>& bytes) {
      buffer = gpu::DeviceBuffer(std::max<std::size_t>(bytes.size(), 1));
      gpu::copy_to_device(buffer.data(), bytes.data(), bytes.size(), stream);
    };
    upload(d_query, query.bytes);
    upload(d_key, key.bytes);
    upload(d_value, value.bytes);
    d_tiles = gpu::DeviceBuffer(std::max<std::size_t>(tiles.size(), 1) * sizeof(nn::AttentionTile));
    gpu::copy_to_device(d_tiles.data(), tiles.data(), tiles.size() * sizeof(nn::AttentionTile),
                        stream);
    d_out = gpu::DeviceBuffer(std::max<std::size_t>(n * nn::element_bytes(type), 1));
    if (with_bias) {
      // A table longer than any sequence (the engine's grows to the longest
      // seen), biases of a few units as trained T5 tables hold.
      bias_tokens = *std::max_element(lengths.begin(), lengths.end()) + 5;
      std::uniform_real_distribution<float> unit(-3.0f, 3.0f);
      bias.resize(heads * (2 * bias_tokens - 1));
      for (float& v : bias) v = unit(rng);
      d_bias = gpu::DeviceBuffer(bias.size() * sizeof(float));
      gpu::copy_to_device(d_bias.data(), bias.data(), bias.size() * sizeof(float), stream);
    }
    const std::size_t e = nn::element_bytes(type), inner = heads * head_dim;
    std::vector<std::uint8_t> fused(3 * n * e);
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t k = 0; k < 3; ++k) {
          const Typed& from = k == 0 ? query : k == 1 ? key : value;
          std::memcpy(&fused[((t * 3 + k) * inner + h * head_dim) * e], &from.bytes[at(h, t) * e],
                      head_dim * e);
        }
    upload(d_qkv, fused);
    std::uniform_real_distribution<float> unit(-2.0f, 2.0f);
    value_bias.resize(inner);
    for (float& v : value_bias) v = unit(rng);
    d_value_bias = gpu::DeviceBuffer(inner * sizeof(float));
    gpu::copy_to_device(d_value_bias.data(), value_bias.data(), inner * sizeof(float), stream);
    stream.synchronize();
  }

  [[nodiscard]] nn::VarlenAttention job(bool tensor_cores,
                                        nn::MmaLayout layout = nn::MmaLayout::automatic,
                                        bool fused = false) const {
    nn::VarlenAttention j;
    j.query = d_query.data();
    j.key = d_key.data();
    j.value = d_value.data();
    if (fused) {
      const std::size_t e = nn::element_bytes(type), inner = heads * head_dim;
      const auto* qkv = static_cast<const std::uint8_t*>(d_qkv.data());
      j.query = qkv;
      j.key = qkv + inner * e;
      j.value = qkv + 2 * inner * e;
      j.query_strides = j.key_strides = j.value_strides = {3 * inner, head_dim};
      j.value_bias = d_value_bias.as<const float>();
    }
    j.in_type = type;
    j.tiles = d_tiles.as<const nn::AttentionTile>();
    j.tile_count = tiles.size();
    j.tokens = tokens;
    j.heads = heads;
    j.head_dim = head_dim;
    j.out = d_out.data();
    j.out_type = type;
    j.allow_tensor_cores = tensor_cores;
    j.mma_layout = layout;
    if (!bias.empty()) {
      j.position_bias = d_bias.as<const float>();
      j.bias_tokens = bias_tokens;
    }
    return j;
  }

  [[nodiscard]] std::size_t at(std::size_t head, std::size_t token) const {
    return (head * tokens + token) * head_dim;
  }
};

// Largest |device - reference| over the batch, in units of max |value|;
// NaN when an output is NaN (the poison survived).
// Worst error allowed, relative to max|v|. fp32 on CUDA cores is exact to
// rounding, which grows with the dot products' length: 1e-5 held to head
// size 64, and at 128 one seed in a few gave 1.06e-5 (run 31). 16-bit: P and
// the output are rounded to the type (2^-9 relative for bf16, 2^-12 for fp16).
double attention_tolerance(nn::NnType type, std::size_t head_dim) {
  if (type == nn::NnType::f32) return 1e-5 * std::max(1.0, static_cast<double>(head_dim) / 64.0);
  return type == nn::NnType::bf16 ? 1.2e-2 : 1.5e-3;
}

double worst_error(const Batch& b, const std::vector<std::uint8_t>& out, bool fused) {
  double worst = 0, value_max = 0;
  for (const double v : b.value.values) value_max = std::max(value_max, std::abs(v));
  const std::size_t d = b.head_dim, e = nn::element_bytes(b.type);
  std::vector<double> scores, expected(d);
  for (std::size_t s = 0; s < b.lengths.size(); ++s)
    for (std::size_t h = 0; h < b.heads; ++h)
      for (std::size_t qi = 0; qi < b.lengths[s]; ++qi) {
        const std::size_t qt = b.begins[s] + qi;
        const double* q = &b.query.values[b.at(h, qt)];
        scores.assign(b.lengths[s], 0);
        double top = -INFINITY;
        for (std::size_t ki = 0; ki < b.lengths[s]; ++ki) {
          const double* k = &b.key.values[b.at(h, b.begins[s] + ki)];
          double dot = 0;
          for (std::size_t c = 0; c < d; ++c) dot += q[c] * k[c];
          if (!b.bias.empty())
            dot += b.bias[h * (2 * b.bias_tokens - 1) + ki + b.bias_tokens - 1 - qi];
          scores[ki] = dot;
          top = std::max(top, dot);
        }
        double sum = 0;
        std::fill(expected.begin(), expected.end(), 0.0);
        for (std::size_t ki = 0; ki < b.lengths[s]; ++ki) {
          const double p = std::exp(scores[ki] - top);
          sum += p;
          const double* v = &b.value.values[b.at(h, b.begins[s] + ki)];
          for (std::size_t c = 0; c < d; ++c) expected[c] += p * v[c];
        }
        for (std::size_t c = 0; c < d; ++c) {
          // Output layout: [tokens][heads x head_dim].
          const double got = read_typed(b.type, out.data() + ((qt * b.heads + h) * d + c) * e);
          if (std::isnan(got)) return std::nan("");
          const double bias = fused ? b.value_bias[h * d + c] : 0.0;
          worst = std::max(worst, std::abs(got - (expected[c] / sum + bias)));
        }
      }
  return worst / value_max;
}

std::vector<std::uint8_t> run_attention(const Batch& b, bool tensor_cores, nn::MmaLayout layout,
                                        bool fused, gpu::Stream& stream) {
  const std::size_t bytes = b.heads * b.tokens * b.head_dim * nn::element_bytes(b.type);
  gpu::fill_device(b.d_out.data(), 0xff, bytes, stream);  // NaN in every type
  REQUIRE(nn::varlen_attention(b.job(tensor_cores, layout, fused), stream) ==
          gpu::Status::kSuccess);
  std::vector<std::uint8_t> out(bytes);
  gpu::copy_to_host(out.data(), b.d_out.data(), bytes, stream);
  stream.synchronize();
  return out;
}

// Every type and head size, both kernels, on a packed batch of the given
// lengths plus six random ones, shuffled; with T5's relative position bias
// or without. The bias is added in fp32 on both kernels: the same
// tolerances.
void check_against_reference(std::vector<std::size_t> lengths, bool position_bias) {
  REQUIRE_FALSE(gpu::devices().empty());
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  gpu::Stream stream;
  const std::string what = position_bias ? "attention + position bias " : "attention ";
  for (const nn::NnType type : {nn::NnType::f32, nn::NnType::bf16, nn::NnType::f16}) {
    for (const std::size_t head_dim : {16, 24, 32, 64, 128}) {
      const double tolerance = attention_tolerance(type, head_dim);
      std::vector<std::size_t> batch_lengths = lengths;
      std::uniform_int_distribution<std::size_t> length(1, 300);
      for (int i = 0; i < 6; ++i) batch_lengths.push_back(length(rng));
      std::shuffle(batch_lengths.begin(), batch_lengths.end(), rng);
      const Batch batch(batch_lengths, 3, head_dim, type, rng, stream, position_bias);
      // The tensor-core kernel in each block layout (4 x 32 runs as 8 x 16
      // past head size 64), then the CUDA-core one.
      for (const auto& [tensor_cores, layout] : {std::pair{true, nn::MmaLayout::warps4_rows16},
                                                 {true, nn::MmaLayout::warps8_rows16},
                                                 {true, nn::MmaLayout::warps4_rows32},
                                                 {false, nn::MmaLayout::automatic}}) {
        // Head-major operands, then the fused QKV layout with a value bias.
        for (const bool fused : {false, true}) {
          const nn::AttentionKernel kernel =
              nn::attention_kernel_for(batch.job(tensor_cores, layout, fused));
          INFO(what << type_name(type) << " head_dim " << head_dim << " on "
                    << nn::to_string(kernel) << ", layout " << nn::to_string(layout)
                    << (fused ? ", fused QKV" : ""));
          const double error =
              worst_error(batch, run_attention(batch, tensor_cores, layout, fused, stream), fused);
          std::cout << what << type_name(type) << " head_dim " << head_dim << " on "
                    << nn::to_string(kernel) << " (" << nn::to_string(layout)
                    << (fused ? ", fused QKV" : "") << "): worst error " << error << " x max|v|\n";
          CHECK(error <= tolerance);  // false for NaN
          // Both layouts of 16-bit operands are aligned for the tensor cores.
          if (tensor_cores && type != nn::NnType::f32)
            CHECK(kernel == nn::attention_kernel_for(batch.job(true)));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("attention kernels equal a float64 reference on random packed batches", "[gpu]") {
  // Tile edges: 64 (half a tile), 128 (a tile), 256.
  check_against_reference({1, 2, 63, 64, 65, 127, 128, 129, 192, 257, 1024}, false);
}

TEST_CASE("attention kernels with T5's relative position bias equal a float64 reference",
          "[gpu][t5]") {
  // T5's placeholder tiles are one token long: lengths 1 among the rest.
  check_against_reference({1, 1, 2, 31, 32, 33, 63, 64, 65, 128, 129, 255, 1023}, true);
}

// Not a check: the tensor-core kernel's time in each block layout on one
// 65,536-token batch of each embedding model's attention shape (lengths 30
// to 800, mean about 415, as the mmseqs2-examples proteins), bf16. Run on
// the GPU machine with `seqfuse_tests "attention kernels: timing*"`.
TEST_CASE("attention kernels: timing on embedding-shaped batches", "[.][gpu][bench]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(20261127);
  gpu::Stream stream;
  struct Shape {
    const char* model;
    std::size_t heads, head_dim;
  };
  for (const Shape shape : {Shape{"ESM-2 8M", 20, 16}, Shape{"ESM-2 650M", 20, 64},
                            Shape{"ProtBERT", 16, 64}, Shape{"ProtT5-XL", 32, 128}}) {
    std::uniform_int_distribution<std::size_t> length(30, 800);
    std::vector<std::size_t> lengths;
    double squares = 0;
    for (std::size_t tokens = 0; tokens < 65536;) {
      lengths.push_back(std::min(length(rng), 65536 - tokens));
      tokens += lengths.back();
      squares += static_cast<double>(lengths.back()) * static_cast<double>(lengths.back());
    }
    const Batch batch(lengths, shape.heads, shape.head_dim, nn::NnType::bf16, rng, stream);
    const double flop = 4.0 * squares * static_cast<double>(shape.heads * shape.head_dim);
    for (const nn::MmaLayout layout : {nn::MmaLayout::warps4_rows16, nn::MmaLayout::warps8_rows16,
                                       nn::MmaLayout::warps4_rows32}) {
      if (layout == nn::MmaLayout::warps4_rows32 && shape.head_dim > 64) continue;
      const nn::VarlenAttention job = batch.job(true, layout);
      for (int i = 0; i < 3; ++i)
        REQUIRE(nn::varlen_attention(job, stream) == gpu::Status::kSuccess);
      stream.synchronize();
      constexpr int kRuns = 20;
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < kRuns; ++i)
        REQUIRE(nn::varlen_attention(job, stream) == gpu::Status::kSuccess);
      stream.synchronize();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kRuns;
      std::cout << "[attention timing] " << shape.model << " (" << shape.heads << " heads of "
                << shape.head_dim << "), " << lengths.size() << " sequences, 65536 tokens, "
                << nn::to_string(layout) << ": " << seconds * 1e3 << " ms, "
                << flop / seconds / 1e12 << " TFLOP/s\n";
    }
  }
}
