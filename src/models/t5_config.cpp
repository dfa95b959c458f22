#include "models/t5_config.hpp"

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/config_json.hpp"

namespace seqfuse::models {

using config_json::positive_int;
using config_json::positive_number_or;
using config_json::string_or;

const char* feed_forward_name(T5FeedForward ff) noexcept {
  return ff == T5FeedForward::gated_gelu ? "gated-gelu" : "relu";
}

T5Config parse_t5_config(std::string_view json_text, const std::string& where) {
  const nlohmann::json config = config_json::parse_object(json_text, where);
  // model_type may be absent (early uploads); the family dispatch
  // (model_family.hpp) decided from architectures then.
  const std::string model_type = string_or(config, "model_type", "t5");
  if (model_type != "t5")
    throw Error(where + " describes a '" + model_type + "' model, not T5 (model_type \"t5\")");

  T5Config c;
  // transformers' T5Config: "gated-gelu" is gelu_new (the tanh form) gated;
  // other activations ("gated-silu", "silu", ...) build other networks.
  const std::string ff = string_or(config, "feed_forward_proj", "relu");
  if (ff == "relu")
    c.feed_forward = T5FeedForward::relu;
  else if (ff == "gated-gelu")
    c.feed_forward = T5FeedForward::gated_gelu;
  else
    throw Error(where + ": feed_forward_proj is '" + ff +
                "'; seqfuse computes T5 encoders with 'relu' or 'gated-gelu' only");
  c.vocab_size = positive_int(config, "vocab_size", where);
  c.d_model = positive_int(config, "d_model", where);
  c.d_kv = positive_int(config, "d_kv", where);
  c.num_heads = positive_int(config, "num_heads", where);
  c.d_ff = positive_int(config, "d_ff", where);
  c.num_layers = positive_int(config, "num_layers", where);
  if (config.contains("relative_attention_num_buckets"))
    c.relative_attention_num_buckets =
        positive_int(config, "relative_attention_num_buckets", where);
  if (config.contains("relative_attention_max_distance"))
    c.relative_attention_max_distance =
        positive_int(config, "relative_attention_max_distance", where);
  // Bidirectional buckets: half per direction, half of those exact distances.
  if (c.relative_attention_num_buckets < 4)
    throw Error(where + ": relative_attention_num_buckets " +
                std::to_string(c.relative_attention_num_buckets) +
                " is too few (T5's bidirectional buckets need at least 4)");
  if (c.relative_attention_max_distance <= c.relative_attention_num_buckets / 4)
    throw Error(where + ": relative_attention_max_distance " +
                std::to_string(c.relative_attention_max_distance) +
                " must exceed the exact distances (relative_attention_num_buckets / 4 = " +
                std::to_string(c.relative_attention_num_buckets / 4) + ")");
  c.layer_norm_epsilon =
      positive_number_or(config, "layer_norm_epsilon", c.layer_norm_epsilon, where);
  c.dtype = string_or(config, "dtype", string_or(config, "torch_dtype", ""));
  return c;
}

T5Config load_t5_config(const std::filesystem::path& config_path) {
  register_input(config_path.string());
  return parse_t5_config(read_regular_file(config_path.string(), "model config"),
                         config_json::quoted_path(config_path.string()));
}

}  // namespace seqfuse::models
