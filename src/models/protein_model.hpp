// A loaded checkpoint of any supported family (model_family.hpp), as the
// embed run sees it: the family's weights, its tokenizer, and the few
// numbers the run needs whatever the family. Engines are made from it
// (make_cpu_engine here, make_gpu_engine in gpu_engine.hpp), each visiting
// the variant to the family's own engine.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "models/bert_weights.hpp"
#include "models/engine.hpp"
#include "models/esm_weights.hpp"
#include "models/model_family.hpp"
#include "models/t5_weights.hpp"
#include "models/tokenizer.hpp"

namespace seqfuse::models {

struct ProteinModel {
  std::variant<EsmModel, BertModel, T5Model> weights;
  ResidueTokenizer tokenizer;

  [[nodiscard]] ModelFamily family() const noexcept {
    if (std::holds_alternative<BertModel>(weights)) return ModelFamily::bert;
    return std::holds_alternative<T5Model>(weights) ? ModelFamily::t5 : ModelFamily::esm;
  }
  [[nodiscard]] std::size_t hidden_size() const noexcept;
  [[nodiscard]] int num_layers() const noexcept;
  [[nodiscard]] const std::string& folder() const noexcept;
  // Residues the position table holds (BERT's absolute positions: a hard
  // limit); nullopt where positions are rotary (ESM-2: any length runs, past
  // the trained length with a warning).
  [[nodiscard]] std::optional<std::size_t> position_limit() const noexcept;
  // Residues the model was trained on (for ESM-2's warning); T5's relative
  // buckets saturate past max_distance, so any length is as trained (the
  // largest size_t: no warning).
  [[nodiscard]] std::size_t trained_residues() const noexcept;
  // The leading special token's vector is a real readout (--pool bos): not
  // for T5, which has none.
  [[nodiscard]] bool has_leading_token() const noexcept { return family() != ModelFamily::t5; }
};

// Reads config.json's family, then that family's config, tokenizer and
// weights (threads as load_esm_model). Throws seqfuse::Error.
[[nodiscard]] ProteinModel load_protein_model(const std::filesystem::path& folder,
                                              unsigned threads = 0);

// The family's CPU engine over `model`, which must outlive it.
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_cpu_engine(const ProteinModel& model,
                                                               unsigned threads);

}  // namespace seqfuse::models
