// A BERT protein model's shape and constants (ProtBERT, ProtBERT-BFD), read
// from a Hugging Face config.json: absolute position embeddings, post-
// LayerNorm blocks, exact-erf GELU. Variants the engines do not compute
// (relative positions, another activation, a decoder) are refused with the
// field that says so.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace seqfuse::models {

struct BertConfig {
  int vocab_size = 0;
  int hidden_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int intermediate_size = 0;
  double layer_norm_eps = 1e-12;      // transformers' BertConfig default (and ProtBERT's)
  int max_position_embeddings = 512;  // BertConfig's default; ProtBERT's is 40000
  int type_vocab_size = 2;
  std::string dtype;  // "float32", "float16", "bfloat16" or empty: informational

  [[nodiscard]] int head_dim() const noexcept { return hidden_size / num_heads; }
  // Residues a sequence may have: the position table less [CLS] and [SEP].
  [[nodiscard]] int max_residues() const noexcept { return max_position_embeddings - 2; }
};

// `where` names the source in error messages. Throws seqfuse::Error.
[[nodiscard]] BertConfig parse_bert_config(std::string_view json_text, const std::string& where);
[[nodiscard]] BertConfig load_bert_config(const std::filesystem::path& config_json);

}  // namespace seqfuse::models
