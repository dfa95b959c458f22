// The GPU engine of embed against transformers' float64 references and the
// CPU engine: every fixture checkpoint (head sizes 16, 24, 32, 64), mean of
// every hidden state, BOS and per-token readouts, random lengths (1 residue,
// a tile and more, the 1022-residue cut), batches against single sequences,
// the portable tiled GEMM (what HIP builds run) next to cuBLASLt, and bf16 /
// fp16 agreement, measured and printed. Device buffers are filled with NaN
// before every batch (GpuEngineOptions::poison_buffers), so a value the
// engine forgets to compute cannot pass.
//
// The engine tests are tagged [gpu] only (not [embed]): CI has no GPU and
// runs "~[gpu]"; the GPU machine runs them through scripts/device-run.sh.
// Without a device or a GPU backend they fail on purpose, saying which. The
// last test case ([embed]) checks the kernels' shared conversions on the CPU.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "io/batch_reader.hpp"
#include "models/cpu_forward.hpp"
#include "models/esm_weights.hpp"
#include "models/float16.hpp"
#include "models/gpu_engine.hpp"
#include "models/tokenizer.hpp"
#include "test_embed_support.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;

namespace {

constexpr double kMinCosine = 0.99999;          // issue #5's bar for fp32
constexpr double kMinCosine16Bit = 0.99;        // bf16/fp16: a gross-error guard only
constexpr double kMaxRelativeErrorFp32 = 1e-3;  // the cosine is the bar; this catches scale

void require_device() {
  INFO("GPU tests need a build with a GPU backend and a visible device");
  REQUIRE(gpu_engine_built());
  REQUIRE_FALSE(seqfuse::gpu::devices().empty());
}

std::unique_ptr<EmbeddingEngine> gpu_engine(const EsmModel& model, ComputeType compute,
                                            bool tiled = false) {
  GpuEngineOptions options;
  options.compute = compute;
  options.tiled_gemm = tiled;
  options.poison_buffers = true;
  return make_gpu_engine(model, options);
}

struct Proteins {
  std::vector<std::string> ids;
  std::vector<std::vector<std::int32_t>> tokens;
  std::vector<std::span<const std::int32_t>> spans;

  void add(std::string id, std::vector<std::int32_t> ids_) {
    ids.push_back(std::move(id));
    tokens.push_back(std::move(ids_));
  }
  void finish() {
    spans.clear();
    for (const auto& t : tokens) spans.emplace_back(t);
  }
  [[nodiscard]] std::size_t total_tokens() const {
    std::size_t n = 0;
    for (const auto& t : tokens) n += t.size();
    return n;
  }
  [[nodiscard]] std::size_t longest() const {
    std::size_t n = 0;
    for (const auto& t : tokens) n = std::max(n, t.size());
    return n;
  }
};

// Every sequence of proteins.fa, all_unknown included (the engine embeds it;
// only the CLI refuses it), as the CPU reference test reads them.
Proteins fixture_proteins() {
  const auto batch = seqfuse::io::read_all((embed_data_dir() / "proteins.fa").string());
  Proteins p;
  for (std::size_t i = 0; i < batch.size(); ++i)
    p.add(std::string(batch.name(i)), tokenize_protein(batch.sequence(i), 1022).ids);
  p.finish();
  return p;
}

// Random residues (a few X and <mask> tokens among them) at the edge
// lengths: 0 and 1 residue, around the 64-row attention tile, and the
// 1022-residue cut (1024 tokens, 16 tiles).
Proteins random_proteins(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYX";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1);
  std::uniform_int_distribution<std::size_t> any_length(1, 400);
  std::vector<std::size_t> lengths = {0, 1, 2, 61, 62, 63, 64, 65, 126, 127, 128, 1022};
  for (int i = 0; i < 12; ++i) lengths.push_back(any_length(rng));
  std::shuffle(lengths.begin(), lengths.end(), rng);
  Proteins p;
  for (std::size_t n : lengths) {
    std::string residues;
    for (std::size_t i = 0; i < n; ++i) residues += letters[letter(rng)];
    auto ids = tokenize_protein(residues, 1022).ids;
    if (n >= 20) {  // token dropout: masked rows are zeroed, the rest rescaled
      ids[3] = kMaskToken;
      ids[n / 2] = kMaskToken;
    }
    p.add("random" + std::to_string(n), std::move(ids));
  }
  p.finish();
  return p;
}

using Tally = AgreementTally;

// Output vectors of every readout slot: NaN-poisoned before the call so a
// row the engine leaves alone fails the comparison.
std::vector<Embedding> run(EmbeddingEngine& engine,
                           std::span<const std::span<const std::int32_t>> in,
                           const Readout& readout) {
  std::vector<Embedding> out(in.size());
  for (auto& e : out) e.values.assign(7, std::numeric_limits<float>::quiet_NaN());
  engine.embed(in, readout, out);
  return out;
}

// Every hidden state's mean, the final BOS vectors (one sequence per call)
// and the final layer's tokens, against the fixture's reference.tsv.
Tally against_reference(const std::string& name, const Proteins& input, ComputeType compute,
                        bool tiled, double min_cosine, double max_relative_error) {
  const EsmModel model = load_esm_model(embed_data_dir() / name);
  const Reference reference = read_reference(embed_data_dir() / name / "reference.tsv");
  const int num_layers = model.config.num_layers;
  const auto hidden = static_cast<std::size_t>(model.config.hidden_size);
  Tally tally{min_cosine, max_relative_error};
  const auto engine = gpu_engine(model, compute, tiled);
  engine->reserve(input.longest(), input.total_tokens());

  Readout means;
  means.layers.resize(static_cast<std::size_t>(num_layers) + 1);
  std::iota(means.layers.begin(), means.layers.end(), 0);
  auto out = run(*engine, input.spans, means);
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    REQUIRE(out[s].rows == 1);
    REQUIRE(out[s].values.size() == means.layers.size() * hidden);
    for (int layer = 0; layer <= num_layers; ++layer)
      tally.add_reference(input.ids[s], "mean@" + std::to_string(layer),
                          out[s].values.data() + static_cast<std::size_t>(layer) * hidden,
                          reference);
  }
  const Readout bos{{num_layers}, Pooling::bos};
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    const auto one = run(*engine, std::span(input.spans).subspan(s, 1), bos);
    tally.add_reference(input.ids[s], "bos", one[0].values.data(), reference);
  }
  const Readout tokens{{num_layers}, Pooling::none};
  out = run(*engine, input.spans, tokens);
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    REQUIRE(out[s].rows == input.tokens[s].size());
    if (!reference.count({input.ids[s], "token:0"})) continue;
    for (std::size_t t = 0; t < out[s].rows; ++t)
      tally.add_reference(input.ids[s], "token:" + std::to_string(t),
                          out[s].values.data() + t * hidden, reference);
  }
  return tally;
}

// GPU against the CPU engine on the same batch, for readouts of several
// layers, vector by vector (per token with --pool none).
void against_cpu(const EsmModel& model, const Proteins& input, EmbeddingEngine& gpu,
                 const Readout& readout, Tally& tally) {
  const auto hidden = static_cast<std::size_t>(model.config.hidden_size);
  CpuEsmEngine cpu(model, 2);
  const auto want = run(cpu, input.spans, readout);
  const auto got = run(gpu, input.spans, readout);
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    REQUIRE(got[s].rows == want[s].rows);
    REQUIRE(got[s].values.size() == want[s].values.size());
    const std::size_t vectors = got[s].values.size() / hidden;
    for (std::size_t v = 0; v < vectors; ++v) {
      // The mean of a sequence without residues is NaN in both engines.
      if (readout.pooling == Pooling::mean && input.tokens[s].size() == 2) {
        CHECK(std::isnan(got[s].values[v * hidden]));
        continue;
      }
      tally.add_engine(input.ids[s] + " vector " + std::to_string(v),
                       got[s].values.data() + v * hidden, want[s].values.data() + v * hidden,
                       hidden);
    }
  }
}

}  // namespace

TEST_CASE("embed GPU fp32 matches transformers on every fixture", "[gpu]") {
  require_device();
  const Proteins input = fixture_proteins();
  REQUIRE(input.longest() == 1024);
  for (const std::string& name : fixture_names()) {
    for (const bool tiled : {false, true}) {
      DYNAMIC_SECTION(name << (tiled ? " tiled GEMM" : " vendor GEMM")) {
        const Tally tally = against_reference(name, input, ComputeType::fp32, tiled, kMinCosine,
                                              kMaxRelativeErrorFp32);
        tally.print("embed GPU fp32 " + name + (tiled ? " (tiled GEMM)" : ""));
        tally.check();
        CHECK(tally.worst_cosine >= kMinCosine);
      }
    }
  }
}

TEST_CASE("embed GPU fp32 equals the CPU engine on random lengths and readouts", "[gpu]") {
  require_device();
  const Proteins input = random_proteins(20261122);
  for (const std::string& name : fixture_names()) {
    DYNAMIC_SECTION(name) {
      const EsmModel model = load_esm_model(embed_data_dir() / name);
      const int last = model.config.num_layers;
      const auto engine = gpu_engine(model, ComputeType::fp32);
      // A reserve smaller than the batch: embed() grows the arena itself.
      engine->reserve(64, 64);
      Tally tally{kMinCosine, kMaxRelativeErrorFp32};
      against_cpu(model, input, *engine, {{last}, Pooling::mean}, tally);
      against_cpu(model, input, *engine, {{0, last}, Pooling::bos}, tally);
      against_cpu(model, input, *engine, {{0, 1, last}, Pooling::none}, tally);
      against_cpu(model, input, *engine, {{last, 1}, Pooling::mean}, tally);
      tally.print("embed GPU fp32 vs CPU, random lengths, " + name);
      tally.check();
    }
  }
}

TEST_CASE("embed GPU: a batch gives each sequence what it gets alone", "[gpu]") {
  require_device();
  const Proteins input = random_proteins(7);
  const EsmModel model = load_esm_model(embed_data_dir() / "esm_hd64_fp32_saved");
  const auto engine = gpu_engine(model, ComputeType::fp32);
  engine->reserve(input.longest(), input.total_tokens());
  const Readout readout{{0, 1, model.config.num_layers}, Pooling::none};
  const auto together = run(*engine, input.spans, readout);
  for (std::size_t s = 0; s < input.spans.size(); ++s) {
    const auto alone = run(*engine, std::span(input.spans).subspan(s, 1), readout);
    REQUIRE(alone[0].values.size() == together[s].values.size());
    double worst = 0;
    for (std::size_t i = 0; i < alone[0].values.size(); ++i)
      worst = std::max(worst, double(std::abs(alone[0].values[i] - together[s].values[i])));
    INFO(input.ids[s]);
    CHECK(worst < 1e-4);
  }
}

TEST_CASE("embed GPU bf16 and fp16: worst cosine against transformers", "[gpu]") {
  require_device();
  const Proteins input = fixture_proteins();
  for (const ComputeType compute : {ComputeType::bf16, ComputeType::fp16}) {
    const char* type = compute == ComputeType::bf16 ? "bf16" : "fp16";
    for (const bool tiled : {false, true}) {
      double worst = 1;
      for (const std::string& name : fixture_names()) {
        INFO(type << " " << name << (tiled ? " tiled GEMM" : " vendor GEMM"));
        const Tally tally = against_reference(name, input, compute, tiled, kMinCosine16Bit,
                                              std::numeric_limits<double>::infinity());
        tally.print(std::string("embed GPU ") + type + " " + name + (tiled ? " (tiled GEMM)" : ""));
        worst = std::min(worst, tally.worst_cosine);
        tally.check();  // only the gross-error guard; the figure is what matters
      }
      std::cout << "embed GPU " << type << (tiled ? " (tiled GEMM)" : "")
                << ": worst cosine over all fixtures " << std::setprecision(8) << worst
                << " (1 - cosine = " << std::setprecision(3) << 1 - worst << ")\n";
    }
  }
}

TEST_CASE("embed GPU: a batch too large for the device is refused in one line", "[gpu]") {
  require_device();
  const EsmModel model = load_esm_model(embed_data_dir() / "esm_hd16_fp32_hub");
  const auto engine = gpu_engine(model, ComputeType::bf16);
  const std::size_t huge = std::size_t{1} << 40;  // tokens: petabytes of activations
  try {
    engine->reserve(1024, huge);
    FAIL("reserve() accepted a batch of 2^40 tokens");
  } catch (const seqfuse::Error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find("--toks-per-batch") != std::string::npos);
    CHECK(what.find("gpu:0") != std::string::npos);
  }
  // The engine still works at a size that fits.
  const Proteins input = random_proteins(3);
  engine->reserve(input.longest(), input.total_tokens());
  const auto out = run(*engine, input.spans, {{model.config.num_layers}, Pooling::bos});
  for (const auto& e : out)
    for (float v : e.values) REQUIRE(std::isfinite(v));
}

TEST_CASE("embed GPU: the factory refuses head sizes without an attention kernel", "[gpu]") {
  require_device();
  EsmModel model = load_esm_model(embed_data_dir() / "esm_hd16_fp32_hub");
  // 64 hidden over 8 heads: head size 8.
  model.config.num_heads = 8;
  CHECK_THROWS_AS(gpu_engine(model, ComputeType::fp32), seqfuse::Error);
}

// The element conversions the GPU kernels use (gpu/nn/nn_types.hpp) are
// host-device code: CI checks them here on the CPU, exhaustively.
TEST_CASE("embed GPU math: 16-bit conversions round to nearest even", "[embed]") {
  namespace nn = seqfuse::gpu::nn;
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    // fp16 -> float is exact, and back gives the same bits (NaN stays NaN).
    const float f = nn::to_float(nn::f16_t{h});
    CHECK(nn::float_bits(f) == nn::float_bits(f16_to_float(h)));  // the checkpoint reader's
    const std::uint16_t f16_back = nn::to_f16(f).bits;
    if (std::isnan(f))
      CHECK(std::isnan(nn::to_float(nn::f16_t{f16_back})));
    else
      CHECK(f16_back == h);
    const float b = nn::to_float(nn::bf16_t{h});
    CHECK(nn::float_bits(b) == nn::float_bits(bf16_to_float(h)));
    if (!std::isnan(b)) CHECK(nn::to_bf16(b).bits == h);
  }
  // Ties go to the even neighbour; just above a tie rounds up.
  CHECK(nn::to_bf16(1.0f + 0x1p-8f).bits == nn::to_bf16(1.0f).bits);
  CHECK(nn::to_bf16(1.0f + 0x1p-8f + 0x1p-20f).bits == nn::to_bf16(1.0f).bits + 1);
  CHECK(nn::to_f16(1.0f + 0x1p-11f).bits == 0x3c00);
  CHECK(nn::to_f16(1.0f + 3 * 0x1p-11f).bits == 0x3c02);
  CHECK(nn::to_f16(65504.0f).bits == 0x7bff);
  CHECK(nn::to_f16(65519.0f).bits == 0x7bff);
  CHECK(nn::to_f16(65520.0f).bits == 0x7c00);  // rounds to infinity
  CHECK(nn::to_f16(-1e9f).bits == 0xfc00);
  CHECK(nn::to_f16(0x1p-25f).bits == 0);      // tie between 0 and the least subnormal
  CHECK(nn::to_f16(0x1.01p-25f).bits == 1);   // just above it
  CHECK(nn::to_f16(3 * 0x1p-25f).bits == 2);  // 1.5 subnormal steps: tie to even 2
  CHECK(nn::to_f16(-0.0f).bits == 0x8000);
  // Random floats: the result is one of the two neighbours, the nearer one.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> any(-70000.0f, 70000.0f);
  for (int i = 0; i < 100000; ++i) {
    const float x = any(rng) * (i % 2 ? 1.0f : 1e-6f);
    const float r = nn::to_float(nn::to_f16(x));
    if (std::abs(x) >= 65520.0f) {
      CHECK(std::isinf(r));
      continue;
    }
    const float up = nn::to_float(nn::f16_t{static_cast<std::uint16_t>(nn::to_f16(x).bits + 1)});
    const float down = nn::to_float(nn::f16_t{static_cast<std::uint16_t>(nn::to_f16(x).bits - 1)});
    CHECK(std::abs(r - x) <= std::abs(up - x));
    CHECK(std::abs(r - x) <= std::abs(down - x));
  }
}
