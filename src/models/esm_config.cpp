#include "models/esm_config.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/config_json.hpp"
#include "models/tokenizer.hpp"

namespace seqfuse::models {
using config_json::bool_or;
using config_json::positive_int;
using config_json::positive_number_or;
using config_json::string_or;
using nlohmann::json;

EsmConfig parse_esm_config(std::string_view json_text, const std::string& where) {
  const json config = config_json::parse_object(json_text, where);

  // What kind of model this is, before any number is trusted.
  const std::string model_type = string_or(config, "model_type", "");
  if (model_type.empty())
    throw Error(where + " has no model_type: not a Hugging Face ESM-2 config");
  if (model_type != "esm")
    throw Error(where + " describes a '" + model_type +
                "' model, not ESM-2 (model_type must be \"esm\")");
  if (bool_or(config, "is_folding_model", false, where))
    throw Error(where + " describes ESMFold (is_folding_model is true), not ESM-2");
  const std::string positions = string_or(config, "position_embedding_type", "absolute");
  if (positions != "rotary")
    throw Error(where + ": position_embedding_type is '" + positions +
                "' (ESM-1/ESM-1b); ESM-2 uses rotary position embeddings");
  if (bool_or(config, "emb_layer_norm_before", false, where))
    throw Error(where + ": emb_layer_norm_before is true (ESM-1b); ESM-2 has no embedding norm");
  const std::string activation = string_or(config, "hidden_act", "gelu");
  if (activation != "gelu")
    throw Error(where + ": hidden_act is '" + activation + "'; ESM-2 uses gelu");

  EsmConfig c;
  c.vocab_size = positive_int(config, "vocab_size", where);
  if (c.vocab_size != kEsmVocabularySize)
    throw Error(where + ": vocab_size is " + std::to_string(c.vocab_size) +
                "; ESM-2's alphabet has " + std::to_string(kEsmVocabularySize) + " tokens");
  if (config.contains("vocab_list") && config["vocab_list"].is_array()) {
    const json& list = config["vocab_list"];
    for (std::size_t i = 0; i < list.size() && i < esm_vocabulary().size(); ++i)
      if (!list[i].is_string() || list[i].get<std::string>() != esm_vocabulary()[i])
        throw Error(where + ": vocab_list differs from ESM-2's alphabet at token " +
                    std::to_string(i));
  }
  c.hidden_size = positive_int(config, "hidden_size", where);
  c.num_layers = positive_int(config, "num_hidden_layers", where);
  c.num_heads = positive_int(config, "num_attention_heads", where);
  c.intermediate_size = positive_int(config, "intermediate_size", where);
  if (c.hidden_size % c.num_heads != 0)
    throw Error(where + ": hidden_size " + std::to_string(c.hidden_size) +
                " is not a multiple of num_attention_heads " + std::to_string(c.num_heads));
  if (c.head_dim() % 2 != 0)
    throw Error(where + ": the head size " + std::to_string(c.head_dim()) +
                " is odd; rotary embeddings need an even one");
  c.layer_norm_eps = positive_number_or(config, "layer_norm_eps", c.layer_norm_eps, where);
  c.rope_theta = positive_number_or(config, "rope_theta", c.rope_theta, where);
  c.token_dropout = bool_or(config, "token_dropout", false, where);
  if (config.contains("mask_token_id") && config["mask_token_id"].is_number_integer())
    c.mask_token_id = config["mask_token_id"].get<int>();
  if (config.contains("max_position_embeddings"))
    c.max_position_embeddings = positive_int(config, "max_position_embeddings", where);
  c.dtype = string_or(config, "dtype", string_or(config, "torch_dtype", ""));
  return c;
}

EsmConfig load_esm_config(const std::filesystem::path& config_path) {
  const std::string where = config_json::quoted_path(config_path.string());
  register_input(config_path.string());
  // Refuses a directory or FIFO named config.json with one clear line (a
  // directory used to be reported as "not valid JSON", a FIFO blocked).
  return parse_esm_config(read_regular_file(config_path.string(), "model config"), where);
}

}  // namespace seqfuse::models
