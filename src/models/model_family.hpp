// Which family of protein language model a checkpoint folder holds, from
// its config.json: the one place `seqfuse embed` dispatches on the model.
// Each family brings its config parser, weight loader, tokenizer and
// engines (protein_model.hpp ties them together). Adding a family means a
// value here, its name in family_from_config, and a member of
// ProteinModel's variant.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace seqfuse::models {

enum class ModelFamily {
  esm,   // ESM-2 (EsmModel / EsmForMaskedLM)
  bert,  // ProtBERT, ProtBERT-BFD (BertModel / BertForMaskedLM / BertForPreTraining)
  t5,    // the ProtT5 encoder (T5EncoderModel, or T5ForConditionalGeneration's encoder)
};

// "esm", "bert", "t5": config.json's model_type.
[[nodiscard]] const char* family_name(ModelFamily family) noexcept;
// "esm (ESM-2), bert (ProtBERT) and t5 (ProtT5)": for messages.
[[nodiscard]] std::string supported_families();

// The family config.json's model_type names; configs written before
// transformers stored model_type (Rostlab's early ProtBERT uploads) are
// recognised by their architectures (BertForMaskedLM, EsmForMaskedLM,
// T5EncoderModel, ...).
// Throws seqfuse::Error naming the model_type and the supported families.
[[nodiscard]] ModelFamily family_from_config(std::string_view json_text, const std::string& where);

// Checks that `folder` is a folder with a config.json (one clear line
// otherwise) and returns that config's family.
[[nodiscard]] ModelFamily read_model_family(const std::filesystem::path& folder);

}  // namespace seqfuse::models
