// A T5 encoder's shape and constants (ProtT5: Rostlab/prot_t5_xl_uniref50,
// prot_t5_xl_bfd and their encoder-only halves), read from a Hugging Face
// config.json: RMS LayerNorm without bias, bidirectional relative position
// buckets, unscaled attention, a ReLU or gated-GELU feed-forward. Only the
// encoder is used; a decoder's fields are ignored. feed_forward_proj values
// the engines do not compute are refused with the field that says so.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace seqfuse::models {

enum class T5FeedForward {
  relu,        // "relu": wo(relu(wi(x)))
  gated_gelu,  // "gated-gelu": wo(gelu_new(wi_0(x)) * wi_1(x)), gelu_new the tanh form
};

struct T5Config {
  int vocab_size = 0;
  int d_model = 0;  // the hidden size
  int d_kv =
      0;  // per head; num_heads * d_kv need not be d_model (ProtT5-XL: 32 x 128 = 4096 vs 1024)
  int num_heads = 0;
  int d_ff = 0;
  int num_layers = 0;                       // encoder blocks
  int relative_attention_num_buckets = 32;  // T5Config's defaults (and ProtT5's)
  int relative_attention_max_distance = 128;
  double layer_norm_epsilon = 1e-6;
  T5FeedForward feed_forward = T5FeedForward::relu;
  std::string dtype;  // "float32", "float16", "bfloat16" or empty: informational

  [[nodiscard]] int inner_dim() const noexcept { return num_heads * d_kv; }
  // The common name the other families use (ProteinModel::hidden_size).
  [[nodiscard]] int hidden_size() const noexcept { return d_model; }
};

// "relu", "gated-gelu".
[[nodiscard]] const char* feed_forward_name(T5FeedForward ff) noexcept;

// `where` names the source in error messages. Throws seqfuse::Error.
[[nodiscard]] T5Config parse_t5_config(std::string_view json_text, const std::string& where);
[[nodiscard]] T5Config load_t5_config(const std::filesystem::path& config_json);

}  // namespace seqfuse::models
