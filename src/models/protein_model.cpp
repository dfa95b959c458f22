#include "models/protein_model.hpp"

#include <algorithm>
#include <limits>

#include "models/bert_tokenizer.hpp"
#include "models/cpu_bert_forward.hpp"
#include "models/cpu_forward.hpp"
#include "models/cpu_t5_forward.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

// A lambda per family, as std::visit wants them.
template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

}  // namespace

std::size_t ProteinModel::hidden_size() const noexcept {
  return std::visit(
      Overload{[](const T5Model& m) { return static_cast<std::size_t>(m.config.d_model); },
               [](const auto& m) { return static_cast<std::size_t>(m.config.hidden_size); }},
      weights);
}

int ProteinModel::num_layers() const noexcept {
  return std::visit([](const auto& m) { return m.config.num_layers; }, weights);
}

const std::string& ProteinModel::folder() const noexcept {
  return std::visit([](const auto& m) -> const std::string& { return m.folder; }, weights);
}

std::optional<std::size_t> ProteinModel::position_limit() const noexcept {
  return std::visit(Overload{[](const EsmModel&) -> std::optional<std::size_t> { return {}; },
                             [](const BertModel& m) -> std::optional<std::size_t> {
                               return static_cast<std::size_t>(m.config.max_residues());
                             },
                             [](const T5Model&) -> std::optional<std::size_t> { return {}; }},
                    weights);
}

std::size_t ProteinModel::trained_residues() const noexcept {
  return std::visit(
      Overload{[](const T5Model&) { return std::numeric_limits<std::size_t>::max(); },
               [](const auto& m) {
                 return static_cast<std::size_t>(std::max(m.config.max_position_embeddings - 2, 0));
               }},
      weights);
}

ProteinModel load_protein_model(const std::filesystem::path& folder, unsigned threads) {
  switch (read_model_family(folder)) {
    case ModelFamily::bert: {
      BertModel bert = load_bert_model(folder, threads);
      ResidueTokenizer tokenizer =
          bert_tokenizer(bert.vocabulary, static_cast<std::size_t>(bert.config.vocab_size),
                         in_quotes((folder / "vocab.txt").string()));
      return ProteinModel{std::move(bert), std::move(tokenizer)};
    }
    case ModelFamily::t5: {
      T5Model t5 = load_t5_model(folder, threads);
      ResidueTokenizer tokenizer = t5.tokenizer;
      return ProteinModel{std::move(t5), std::move(tokenizer)};
    }
    case ModelFamily::esm:
      break;
  }
  return ProteinModel{load_esm_model(folder, threads), esm_tokenizer()};
}

std::unique_ptr<EmbeddingEngine> make_cpu_engine(const ProteinModel& model, unsigned threads) {
  return std::visit(Overload{[&](const EsmModel& m) -> std::unique_ptr<EmbeddingEngine> {
                               return std::make_unique<CpuEsmEngine>(m, threads);
                             },
                             [&](const BertModel& m) -> std::unique_ptr<EmbeddingEngine> {
                               return std::make_unique<CpuBertEngine>(m, threads);
                             },
                             [&](const T5Model& m) -> std::unique_ptr<EmbeddingEngine> {
                               return std::make_unique<CpuT5Engine>(m, threads);
                             }},
                    model.weights);
}

}  // namespace seqfuse::models
