// The GPU engine for T5 encoders (ProtT5) against transformers'
// T5EncoderModel (the fixtures' float64 references,
// scripts/make-t5-fixtures.py) and the CPU engine: every t5 fixture (head
// sizes 16, 24, 32, 64; ReLU and gated-GELU feed-forward; F32, F16, BF16
// tensors; saved, sharded, full T5ForConditionalGeneration and
// pytorch_model.bin layouts), mean of every hidden state and per-token
// readouts, random lengths (1 residue to the 1022-residue cut), batches
// against single sequences, cuBLASLt and the portable tiled GEMM, and bf16 /
// fp16 agreement, measured and printed. Device buffers are NaN-poisoned
// before every batch, so a row the engine forgets (the placeholder's
// attention output) shows up. T5 has no leading token: the placeholder
// first row must be exactly zero in every hidden state, as on the CPU.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../unit/test_embed_support.hpp"
#include "gpu/runtime.hpp"
#include "gpu_embed_support.hpp"
#include "io/batch_reader.hpp"
#include "models/cpu_t5_forward.hpp"
#include "models/gpu_engine.hpp"
#include "models/protein_model.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;

namespace {

constexpr double kMinCosine = 0.99999;
constexpr double kMinCosine16Bit =
    0.99;  // a gross-error guard, as BERT's; the printed figure matters
constexpr double kMaxRelativeErrorFp32 = 1e-3;

const std::vector<std::string>& t5_fixture_names() {
  static const std::vector<std::string> names = {"t5_hd16_fp32_saved", "t5_hd24_fp16_sharded",
                                                 "t5_hd32_bf16_full", "t5_hd64_fp32_bin"};
  return names;
}

// Edge lengths for random_input: 1 residue, around the 64-row attention
// tile (T5's tiles start after the placeholder), the cut.
std::vector<std::size_t> edge_lengths() {
  return {1, 2, 62, 63, 64, 65, 126, 127, 128, 1022};
}

std::unique_ptr<EmbeddingEngine> t5_gpu_engine(const T5Model& model, ComputeType compute,
                                               bool tiled = false) {
  GpuEngineOptions options;
  options.compute = compute;
  options.tiled_gemm = tiled;
  options.poison_buffers = true;
  return make_gpu_engine(model, options);
}

AgreementTally against_reference(const std::string& name, ComputeType compute, bool tiled,
                                 double min_cosine, double max_relative_error) {
  const ProteinModel model = load_protein_model(embed_data_dir() / name, 2);
  REQUIRE(model.family() == ModelFamily::t5);
  const T5Model& t5 = std::get<T5Model>(model.weights);
  const Reference reference = read_reference(embed_data_dir() / name / "reference.tsv");
  const Input input = fixture_input(model);
  const int num_layers = model.num_layers();
  const std::size_t hidden = model.hidden_size();
  AgreementTally tally{min_cosine, max_relative_error};
  const auto engine = t5_gpu_engine(t5, compute, tiled);

  add_layer_means(tally, *engine, input, num_layers, hidden, reference);
  auto out = run(*engine, input.spans, {{num_layers}, Pooling::none});
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    REQUIRE(out[s].rows == input.proteins[s].ids.size());
    // The placeholder's row: zero, as the CPU engine leaves it.
    const auto placeholder = std::span(out[s].values).first(hidden);
    INFO(input.ids[s]);
    CHECK(std::all_of(placeholder.begin(), placeholder.end(), [](float v) { return v == 0; }));
    if (!reference.count({input.ids[s], "token:0"})) continue;
    // Rows: the placeholder, the residue tokens, </s>; token:I is residue token I.
    for (std::size_t t = 0; t < input.proteins[s].residues; ++t)
      tally.add_reference(input.ids[s], "token:" + std::to_string(t),
                          out[s].values.data() + (t + 1) * hidden, reference);
  }
  CHECK(tally.compared == reference.size());
  return tally;
}

}  // namespace

TEST_CASE("embed GPU t5 fp32 matches transformers on every t5 fixture", "[gpu][embed][t5]") {
  require_device();
  for (const std::string& name : t5_fixture_names())
    for (const bool tiled : {false, true}) {
      DYNAMIC_SECTION(name << (tiled ? " tiled GEMM" : " vendor GEMM")) {
        const AgreementTally tally =
            against_reference(name, ComputeType::fp32, tiled, kMinCosine, kMaxRelativeErrorFp32);
        tally.print("embed GPU t5 fp32 " + name + (tiled ? " (tiled GEMM)" : ""));
        tally.check();
        CHECK(tally.worst_cosine >= kMinCosine);
      }
    }
}

TEST_CASE("embed GPU t5 fp32 equals the CPU engine on random lengths, readouts, batches",
          "[gpu][embed][t5]") {
  require_device();
  for (const std::string& name : t5_fixture_names()) {
    DYNAMIC_SECTION(name) {
      const ProteinModel model = load_protein_model(embed_data_dir() / name, 2);
      const T5Model& t5 = std::get<T5Model>(model.weights);
      const Input input = random_input(model, 20261126, edge_lengths());
      const int last = model.num_layers();
      const std::size_t hidden = model.hidden_size();
      const auto gpu = t5_gpu_engine(t5, ComputeType::fp32);
      gpu->reserve(64, 64);  // embed() grows the arena and the bias table itself
      CpuT5Engine cpu(t5, 2);
      AgreementTally tally{kMinCosine, kMaxRelativeErrorFp32};
      add_engine_agreement(
          tally, *gpu, cpu, input,
          {Readout{{last}, Pooling::mean}, Readout{{0, last}, Pooling::mean},
           Readout{{0, 1, last}, Pooling::none}, Readout{{last, 1}, Pooling::mean}},
          hidden);
      check_batch_equals_alone(*gpu, input, {{0, last}, Pooling::none});
      tally.print("embed GPU t5 fp32 vs CPU, random lengths, " + name);
      tally.check();
    }
  }
}

// ProtT5-XL's attention shape on a small model: head size 128 and an
// attention width (2 x 128) four times the hidden size, random attention
// weights and position table on a fixture's gated-GELU layers, GPU against
// the CPU engine in fp32 (CUDA-core attention) and bf16 (tensor cores).
TEST_CASE("embed GPU t5: head size 128, attention wider than the hidden size, equals the CPU",
          "[gpu][embed][t5]") {
  require_device();
  const ProteinModel model = load_protein_model(embed_data_dir() / "t5_hd32_bf16_full", 2);
  T5Model t5 = std::get<T5Model>(model.weights);
  REQUIRE(t5.config.feed_forward == T5FeedForward::gated_gelu);
  t5.config.num_heads = 2;
  t5.config.d_kv = 128;
  const auto hidden = static_cast<std::size_t>(t5.config.d_model);
  const auto inner = static_cast<std::size_t>(t5.config.inner_dim());
  std::mt19937_64 rng(20261126);
  const auto fill = [&rng](std::vector<float>& v, std::size_t n, double spread) {
    std::uniform_real_distribution<float> draw(static_cast<float>(-spread),
                                               static_cast<float>(spread));
    v.resize(n);
    for (float& x : v) x = draw(rng);
  };
  // Scores of a few units over 128 channels; biases of a few units.
  for (T5LayerWeights& w : t5.layers) {
    for (auto* m : {&w.query_weight, &w.key_weight, &w.value_weight})
      fill(*m, inner * hidden, 0.6 / std::sqrt(static_cast<double>(hidden)));
    fill(w.attention_output_weight, hidden * inner, 1.5 / std::sqrt(static_cast<double>(inner)));
  }
  fill(t5.relative_attention_bias,
       static_cast<std::size_t>(t5.config.relative_attention_num_buckets) * 2, 3.0);
  const Input input = random_input(model, 20261127, edge_lengths());
  const int last = t5.config.num_layers;
  CpuT5Engine cpu(t5, 2);
  const Readout readout{{0, 1, last}, Pooling::none};
  for (const ComputeType compute : {ComputeType::fp32, ComputeType::bf16}) {
    const bool fp32 = compute == ComputeType::fp32;
    INFO((fp32 ? "fp32" : "bf16"));
    const auto gpu = t5_gpu_engine(t5, compute);
    AgreementTally tally{fp32 ? kMinCosine : kMinCosine16Bit,
                         fp32 ? kMaxRelativeErrorFp32 : std::numeric_limits<double>::infinity()};
    add_engine_agreement(tally, *gpu, cpu, input, {readout}, hidden);
    tally.print(std::string("embed GPU t5 head size 128 ") + (fp32 ? "fp32" : "bf16") + " vs CPU");
    tally.check();
  }
}

TEST_CASE("embed GPU t5 bf16 and fp16: worst cosine against transformers", "[gpu][embed][t5]") {
  require_device();
  for (const ComputeType compute : {ComputeType::bf16, ComputeType::fp16}) {
    const char* type = compute == ComputeType::bf16 ? "bf16" : "fp16";
    double worst = 1;
    for (const std::string& name : t5_fixture_names()) {
      INFO(type << " " << name);
      const AgreementTally tally = against_reference(name, compute, false, kMinCosine16Bit,
                                                     std::numeric_limits<double>::infinity());
      tally.print(std::string("embed GPU t5 ") + type + " " + name);
      worst = std::min(worst, tally.worst_cosine);
      tally.check();
    }
    std::cout << "embed GPU t5 " << type << ": worst cosine over all fixtures "
              << std::setprecision(8) << worst << " (1 - cosine = " << std::setprecision(3)
              << 1 - worst << ")\n";
  }
}
