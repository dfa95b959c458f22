// The GPU engine's family-neutral shell (src/models/gpu_model_engine.hpp)
// through both families' engines (ESM-2, BERT): the batch checks it makes for
// every family refuse in one line and leave the engine working (the next
// batch gives the same bytes as before); an empty batch is a no-op; an engine
// keeps nothing of the host model it was made from (the weight upload points
// every device tensor itself); and each family's reserve(): BERT's position
// table bounds a sequence, ESM-2's rotary tables grow past the trained
// length. Device buffers are NaN-poisoned before every batch.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "../unit/test_embed_support.hpp"
#include "core/error.hpp"
#include "gpu/runtime.hpp"
#include "models/gpu_engine.hpp"
#include "models/protein_model.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;

namespace {

void require_device() {
  INFO("GPU tests need a build with a GPU backend and a visible device");
  REQUIRE(gpu_engine_built());
  REQUIRE_FALSE(seqfuse::gpu::devices().empty());
}

std::unique_ptr<EmbeddingEngine> fp32_engine(const ProteinModel& model) {
  GpuEngineOptions options;
  options.compute = ComputeType::fp32;
  options.poison_buffers = true;
  return make_gpu_engine(model, options);
}

struct Batch {
  std::vector<std::vector<std::int32_t>> tokens;
  std::vector<std::span<const std::int32_t>> spans;
  std::size_t total = 0, longest = 0;  // tokens
  void finish() {
    spans.assign(tokens.begin(), tokens.end());
    total = longest = 0;
    for (const auto& t : tokens) {
      total += t.size();
      longest = std::max(longest, t.size());
    }
  }
};

Batch random_batch(const ProteinModel& model, const std::vector<std::size_t>& lengths,
                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1);
  Batch b;
  for (std::size_t n : lengths) {
    std::string residues(n, 'A');
    std::generate(residues.begin(), residues.end(), [&] { return letters[letter(rng)]; });
    b.tokens.push_back(model.tokenizer.tokenize(residues, n).ids);
  }
  b.finish();
  return b;
}

// reserve() for the batch, then embed() into NaN-filled outputs.
std::vector<Embedding> run(EmbeddingEngine& engine, const Batch& batch, const Readout& readout) {
  engine.reserve(batch.longest, batch.total);
  std::vector<Embedding> out(batch.spans.size());
  for (auto& e : out) e.values.assign(3, std::numeric_limits<float>::quiet_NaN());
  engine.embed(batch.spans, readout, out);
  return out;
}

bool same_bytes(const std::vector<Embedding>& a, const std::vector<Embedding>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].rows != b[i].rows || a[i].values != b[i].values) return false;  // NaN: unequal
  return true;
}

// Every hidden state, as transformers numbers them.
Readout every_layer(const ProteinModel& model, Pooling pooling) {
  Readout readout;
  for (int i = 0; i <= model.num_layers(); ++i) readout.layers.push_back(i);
  readout.pooling = pooling;
  return readout;
}

int vocab_size(const ProteinModel& model) {
  return std::visit([](const auto& m) { return m.config.vocab_size; }, model.weights);
}

// embed() refuses with one line naming `expected`.
void require_refused(EmbeddingEngine& engine, std::span<const std::span<const std::int32_t>> in,
                     const Readout& readout, std::size_t outputs, const std::string& expected) {
  std::vector<Embedding> out(outputs);
  try {
    engine.embed(in, readout, out);
    FAIL("embed() accepted a batch it should refuse (" + expected + ")");
  } catch (const seqfuse::Error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find(expected) != std::string::npos);
  }
}

const char* const kFamilies[] = {"esm_hd16_fp32_hub", "bert_hd16_fp32_saved"};

}  // namespace

TEST_CASE("embed GPU shell: bad batches are refused in one line, the engine runs on", "[gpu]") {
  require_device();
  for (const char* name : kFamilies) {
    INFO(name);
    const ProteinModel model = load_protein_model(embed_data_dir() / name, 2);
    const auto engine = fp32_engine(model);
    const Batch good = random_batch(model, {1, 40, 130}, 21);
    for (Pooling pooling : {Pooling::mean, Pooling::bos, Pooling::none}) {
      const Readout readout = every_layer(model, pooling);
      const auto before = run(*engine, good, readout);
      for (const auto& e : before)
        for (float v : e.values) REQUIRE(std::isfinite(v));

      Batch bad = good;
      bad.tokens.push_back({bad.tokens[0][0]});  // a first special token alone
      bad.finish();
      require_refused(*engine, bad.spans, readout, bad.spans.size(), "the engine takes");
      bad = good;
      bad.tokens[1][5] = vocab_size(model);
      bad.finish();
      require_refused(*engine, bad.spans, readout, bad.spans.size(), "outside the vocabulary");
      Readout past_last = readout;
      past_last.layers.push_back(model.num_layers() + 1);
      require_refused(*engine, good.spans, past_last, good.spans.size(), "hidden state");
      require_refused(*engine, good.spans, readout, good.spans.size() + 1, "outputs for");

      std::vector<Embedding> none;
      engine->embed({}, readout, none);  // an empty batch: nothing to do
      const auto after = run(*engine, good, readout);
      CHECK(same_bytes(before, after));
    }
  }
}

TEST_CASE("embed GPU shell: an engine keeps nothing of the host model it was made from", "[gpu]") {
  require_device();
  for (const char* name : kFamilies) {
    INFO(name);
    auto model = std::make_unique<ProteinModel>(load_protein_model(embed_data_dir() / name, 2));
    const auto engine = fp32_engine(*model);
    const Batch batch = random_batch(*model, {3, 64, 65, 200}, 22);
    const Readout readout = every_layer(*model, Pooling::none);
    const ProteinModel kept = load_protein_model(embed_data_dir() / name, 2);
    // Overwritten, then freed: an engine still reading it would differ.
    std::visit(
        [](auto& m) {
          if constexpr (requires { m.word_embeddings; })  // ESM-2 and BERT (kFamilies)
            for (float& v : m.word_embeddings) v = std::numeric_limits<float>::quiet_NaN();
        },
        model->weights);
    model.reset();
    const auto out = run(*engine, batch, readout);
    const auto want = run(*fp32_engine(kept), batch, readout);
    CHECK(same_bytes(out, want));
  }
}

TEST_CASE("embed GPU shell: BERT's position table bounds reserve(), ESM-2's rotary tables grow",
          "[gpu]") {
  require_device();
  {
    const ProteinModel model = load_protein_model(embed_data_dir() / "bert_hd16_fp32_saved", 2);
    const auto engine = fp32_engine(model);
    const std::size_t table = *model.position_limit() + 2;  // positions: residues, [CLS], [SEP]
    engine->reserve(table, table);
    try {
      engine->reserve(table + 1, table + 1);
      FAIL("reserve() accepted a sequence longer than the position table");
    } catch (const seqfuse::Error& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("position table") != std::string::npos);
      CHECK(what.find('\n') == std::string::npos);
    }
  }
  {
    // Three times ESM-2's 1,026 trained positions, against the CPU engine.
    const ProteinModel model = load_protein_model(embed_data_dir() / "esm_hd16_fp32_hub", 2);
    const Batch batch = random_batch(model, {3000, 10}, 23);
    const Readout readout{{model.num_layers()}, Pooling::none};
    const auto engine = fp32_engine(model);
    engine->reserve(3002, 3014);
    std::vector<Embedding> gpu_out(2), cpu_out(2);
    engine->embed(batch.spans, readout, gpu_out);
    const auto cpu = make_cpu_engine(model, 2);
    cpu->reserve(3002, 3014);
    cpu->embed(batch.spans, readout, cpu_out);
    AgreementTally tally(0.99999, 1e-3);
    const std::size_t hidden = model.hidden_size();
    for (std::size_t s = 0; s < 2; ++s) {
      REQUIRE(gpu_out[s].values.size() == cpu_out[s].values.size());
      for (std::size_t row = 0; row < gpu_out[s].rows; ++row)
        tally.add_engine("sequence " + std::to_string(s) + " token " + std::to_string(row),
                         gpu_out[s].values.data() + row * hidden,
                         cpu_out[s].values.data() + row * hidden, hidden);
    }
    for (const auto& f : tally.failures) UNSCOPED_INFO(f);
    CHECK(tally.failures.empty());
  }
}
