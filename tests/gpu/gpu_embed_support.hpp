// What the GPU embed tests of every family share: the device check, the
// fixtures' proteins and random ones tokenized by the model under test, one
// engine call with NaN-filled outputs (a result the engine fails to write
// shows), and the comparisons every family makes: the mean of every hidden
// state against the reference, the GPU engine against the CPU engine, and a
// batch against each sequence alone.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../unit/test_embed_support.hpp"
#include "gpu/runtime.hpp"
#include "io/batch_reader.hpp"
#include "models/engine.hpp"
#include "models/gpu_engine.hpp"
#include "models/protein_model.hpp"

namespace seqfuse::models::test {

inline void require_device() {
  INFO("GPU tests need a build with a GPU backend and a visible device");
  REQUIRE(gpu_engine_built());
  REQUIRE_FALSE(seqfuse::gpu::devices().empty());
}

// Proteins tokenized by one model, with the spans an engine takes.
struct Input {
  std::vector<std::string> ids;
  std::vector<TokenizedProtein> proteins;
  std::vector<std::span<const std::int32_t>> spans;
  void finish() {
    spans.clear();
    for (const auto& p : proteins) spans.emplace_back(p.ids);
  }
};

// The fixtures' proteins.fa, cut at 1022 residues.
inline Input fixture_input(const ProteinModel& model) {
  const auto batch = seqfuse::io::read_all((embed_data_dir() / "proteins.fa").string());
  Input in;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    in.ids.emplace_back(batch.name(i));
    in.proteins.push_back(model.tokenizer.tokenize(batch.sequence(i), 1022));
  }
  in.finish();
  return in;
}

// Random residues (U, Z, O, B, lower case and unknown letters among them)
// at the given edge lengths plus ten random ones of up to 400, shuffled.
inline Input random_input(const ProteinModel& model, std::uint64_t seed,
                          std::vector<std::size_t> lengths) {
  std::mt19937_64 rng(seed);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYXUZOBkj";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1);
  std::uniform_int_distribution<std::size_t> any_length(1, 400);
  for (int i = 0; i < 10; ++i) lengths.push_back(any_length(rng));
  std::shuffle(lengths.begin(), lengths.end(), rng);
  Input in;
  for (std::size_t n : lengths) {
    std::string residues;
    for (std::size_t i = 0; i < n; ++i) residues += letters[letter(rng)];
    in.ids.push_back("random" + std::to_string(n));
    in.proteins.push_back(model.tokenizer.tokenize(residues, 1022));
  }
  in.finish();
  return in;
}

inline std::vector<Embedding> run(EmbeddingEngine& engine,
                                  std::span<const std::span<const std::int32_t>> in,
                                  const Readout& readout) {
  std::vector<Embedding> out(in.size());
  for (auto& e : out) e.values.assign(7, std::numeric_limits<float>::quiet_NaN());
  engine.embed(in, readout, out);
  return out;
}

// The mean of every hidden state, 0 to the last, as one readout.
inline Readout every_layer_mean(int num_layers) {
  Readout means;
  means.layers.resize(static_cast<std::size_t>(num_layers) + 1);
  for (int layer = 0; layer <= num_layers; ++layer)
    means.layers[static_cast<std::size_t>(layer)] = layer;
  return means;
}

// `engine`'s every_layer_mean of the fixture's proteins into the tally, as
// the reference's "mean@L" rows and the last layer's also as "mean".
inline void add_layer_means(AgreementTally& tally, EmbeddingEngine& engine, const Input& input,
                            int num_layers, std::size_t hidden, const Reference& reference) {
  const auto out = run(engine, input.spans, every_layer_mean(num_layers));
  for (std::size_t s = 0; s < input.ids.size(); ++s) {
    for (int layer = 0; layer <= num_layers; ++layer)
      tally.add_reference(input.ids[s], "mean@" + std::to_string(layer),
                          out[s].values.data() + static_cast<std::size_t>(layer) * hidden,
                          reference);
    tally.add_reference(input.ids[s], "mean",
                        out[s].values.data() + static_cast<std::size_t>(num_layers) * hidden,
                        reference);
  }
}

// The GPU engine against the CPU engine, vector by vector, for each readout.
// Zero rows (T5's placeholder) must be exactly zero: compare() takes a zero
// reference only against an exact zero.
inline void add_engine_agreement(AgreementTally& tally, EmbeddingEngine& gpu, EmbeddingEngine& cpu,
                                 const Input& input, const std::vector<Readout>& readouts,
                                 std::size_t hidden) {
  for (const Readout& readout : readouts) {
    const auto want = run(cpu, input.spans, readout);
    const auto got = run(gpu, input.spans, readout);
    for (std::size_t s = 0; s < input.ids.size(); ++s) {
      REQUIRE(got[s].values.size() == want[s].values.size());
      for (std::size_t v = 0; v < got[s].values.size() / hidden; ++v)
        tally.add_engine(input.ids[s] + " vector " + std::to_string(v),
                         got[s].values.data() + v * hidden, want[s].values.data() + v * hidden,
                         hidden);
    }
  }
}

// A batch gives each sequence what it gets alone.
inline void check_batch_equals_alone(EmbeddingEngine& engine, const Input& input,
                                     const Readout& readout) {
  const auto together = run(engine, input.spans, readout);
  for (std::size_t s = 0; s < input.spans.size(); ++s) {
    const auto alone = run(engine, std::span(input.spans).subspan(s, 1), readout);
    double worst = 0;
    for (std::size_t i = 0; i < alone[0].values.size(); ++i)
      worst = std::max(worst, double(std::abs(alone[0].values[i] - together[s].values[i])));
    INFO(input.ids[s]);
    CHECK(worst < 1e-4);
  }
}

}  // namespace seqfuse::models::test
