// What the GPU embed tests of every family share: the device check, the
// fixtures' proteins and random ones tokenized by the model under test, and
// one engine call with NaN-filled outputs (a result the engine fails to
// write shows).
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
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

}  // namespace seqfuse::models::test
