// The GPU engine for BERT protein models (ProtBERT) against transformers'
// BertModel (float64 references of scripts/make-bert-fixtures.py) and the
// CPU engine: every BERT fixture (head sizes 16, 24, 32, 64; F32, F16, BF16
// tensors; saved, bert.-prefixed, sharded and pytorch_model.bin layouts),
// mean of every hidden state, [CLS] and per-token readouts, random lengths
// (1 residue to the 1022-residue cut), batches against single sequences,
// cuBLASLt and the portable tiled GEMM, and bf16 / fp16 agreement, measured
// and printed. Device buffers are NaN-poisoned before every batch.
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
#include "models/cpu_bert_forward.hpp"
#include "models/gpu_engine.hpp"
#include "models/protein_model.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;

namespace {

constexpr double kMinCosine = 0.99999;
constexpr double kMinCosine16Bit = 0.99;  // a gross-error guard; the printed figure matters
constexpr double kMaxRelativeErrorFp32 = 1e-3;

// Edge lengths for random_input: 1 residue, around the 64-row attention
// tile, the cut.
std::vector<std::size_t> edge_lengths() {
  return {1, 2, 61, 62, 63, 64, 65, 126, 127, 1022};
}

std::unique_ptr<EmbeddingEngine> bert_gpu_engine(const BertModel& model, ComputeType compute,
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
  const BertModel& bert = std::get<BertModel>(model.weights);
  const Reference reference = read_reference(embed_data_dir() / name / "reference.tsv");
  const Input input = fixture_input(model);
  const int num_layers = model.num_layers();
  const std::size_t hidden = model.hidden_size();
  AgreementTally tally{min_cosine, max_relative_error};
  const auto engine = bert_gpu_engine(bert, compute, tiled);

  add_layer_means(tally, *engine, input, num_layers, hidden, reference);
  auto out = run(*engine, input.spans, {{num_layers}, Pooling::bos});
  for (std::size_t s = 0; s < input.ids.size(); ++s)
    tally.add_reference(input.ids[s], "bos", out[s].values.data(), reference);
  out = run(*engine, input.spans, {{num_layers}, Pooling::none});
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    REQUIRE(out[s].rows == input.proteins[s].ids.size());
    if (!reference.count({input.ids[s], "token:0"})) continue;
    for (std::size_t t = 0; t < out[s].rows; ++t)
      tally.add_reference(input.ids[s], "token:" + std::to_string(t),
                          out[s].values.data() + t * hidden, reference);
  }
  CHECK(tally.compared == reference.size());
  return tally;
}

}  // namespace

TEST_CASE("embed GPU bert fp32 matches transformers on every BERT fixture", "[gpu]") {
  require_device();
  for (const std::string& name : bert_fixture_names())
    for (const bool tiled : {false, true}) {
      DYNAMIC_SECTION(name << (tiled ? " tiled GEMM" : " vendor GEMM")) {
        const AgreementTally tally =
            against_reference(name, ComputeType::fp32, tiled, kMinCosine, kMaxRelativeErrorFp32);
        tally.print("embed GPU bert fp32 " + name + (tiled ? " (tiled GEMM)" : ""));
        tally.check();
        CHECK(tally.worst_cosine >= kMinCosine);
      }
    }
}

TEST_CASE("embed GPU bert fp32 equals the CPU engine on random lengths, readouts, batches",
          "[gpu]") {
  require_device();
  for (const std::string& name : bert_fixture_names()) {
    DYNAMIC_SECTION(name) {
      const ProteinModel model = load_protein_model(embed_data_dir() / name, 2);
      const BertModel& bert = std::get<BertModel>(model.weights);
      const Input input = random_input(model, 20261126, edge_lengths());
      const int last = model.num_layers();
      const std::size_t hidden = model.hidden_size();
      const auto gpu = bert_gpu_engine(bert, ComputeType::fp32);
      gpu->reserve(64, 64);  // embed() grows the arena itself
      CpuBertEngine cpu(bert, 2);
      AgreementTally tally{kMinCosine, kMaxRelativeErrorFp32};
      add_engine_agreement(
          tally, *gpu, cpu, input,
          {Readout{{last}, Pooling::mean}, Readout{{0, last}, Pooling::bos},
           Readout{{0, 1, last}, Pooling::none}, Readout{{last, 1}, Pooling::mean}},
          hidden);
      check_batch_equals_alone(*gpu, input, {{0, last}, Pooling::none});
      tally.print("embed GPU bert fp32 vs CPU, random lengths, " + name);
      tally.check();
    }
  }
}

TEST_CASE("embed GPU bert bf16 and fp16: worst cosine against transformers", "[gpu]") {
  require_device();
  for (const ComputeType compute : {ComputeType::bf16, ComputeType::fp16}) {
    const char* type = compute == ComputeType::bf16 ? "bf16" : "fp16";
    double worst = 1;
    for (const std::string& name : bert_fixture_names()) {
      INFO(type << " " << name);
      const AgreementTally tally = against_reference(name, compute, false, kMinCosine16Bit,
                                                     std::numeric_limits<double>::infinity());
      tally.print(std::string("embed GPU bert ") + type + " " + name);
      worst = std::min(worst, tally.worst_cosine);
      tally.check();
    }
    std::cout << "embed GPU bert " << type << ": worst cosine over all fixtures "
              << std::setprecision(8) << worst << " (1 - cosine = " << std::setprecision(3)
              << 1 - worst << ")\n";
  }
}
