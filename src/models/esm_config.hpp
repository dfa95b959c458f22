// An ESM-2 model's shape and constants, read from a Hugging Face config.json.
// Anything that is not ESM-2 (ESM-1b's absolute positions, ESMFold, BERT-like
// models such as ProtBERT) is refused with the field that says so.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace seqfuse::models {

struct EsmConfig {
  int vocab_size = 33;
  int hidden_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int intermediate_size = 0;
  double layer_norm_eps = 1e-12;  // transformers' EsmConfig default; checkpoints say 1e-5
  double rope_theta = 10000.0;    // used only when the checkpoint stores no inv_freq
  bool token_dropout = true;      // ESM-2: embeddings x (1 - 0.15 x 0.8) at inference
  int mask_token_id = 32;
  int max_position_embeddings = 1026;
  std::string dtype;  // "float32", "float16", "bfloat16" or empty: informational

  [[nodiscard]] int head_dim() const noexcept { return hidden_size / num_heads; }
};

// `where` names the source in error messages. Throws seqfuse::Error.
[[nodiscard]] EsmConfig parse_esm_config(std::string_view json_text, const std::string& where);
[[nodiscard]] EsmConfig load_esm_config(const std::filesystem::path& config_json);

}  // namespace seqfuse::models
