#include "models/bert_config.hpp"

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/config_json.hpp"

namespace seqfuse::models {

using config_json::bool_or;
using config_json::positive_int;
using config_json::positive_number_or;
using config_json::string_or;

BertConfig parse_bert_config(std::string_view json_text, const std::string& where) {
  const nlohmann::json config = config_json::parse_object(json_text, where);
  // model_type may be absent (early hub uploads); the family dispatch
  // (model_family.hpp) decided from architectures then.
  const std::string model_type = string_or(config, "model_type", "bert");
  if (model_type != "bert")
    throw Error(where + " describes a '" + model_type + "' model, not BERT (model_type \"bert\")");
  const std::string positions = string_or(config, "position_embedding_type", "absolute");
  if (positions != "absolute")
    throw Error(where + ": position_embedding_type is '" + positions +
                "'; seqfuse computes BERT with absolute position embeddings only");
  const std::string activation = string_or(config, "hidden_act", "gelu");
  if (activation != "gelu")
    throw Error(where + ": hidden_act is '" + activation +
                "'; seqfuse computes BERT with exact (erf) gelu only");
  if (bool_or(config, "is_decoder", false, where))
    throw Error(where + ": is_decoder is true; seqfuse embeds with BERT encoders only");

  BertConfig c;
  c.vocab_size = positive_int(config, "vocab_size", where);
  c.hidden_size = positive_int(config, "hidden_size", where);
  c.num_layers = positive_int(config, "num_hidden_layers", where);
  c.num_heads = positive_int(config, "num_attention_heads", where);
  c.intermediate_size = positive_int(config, "intermediate_size", where);
  if (c.hidden_size % c.num_heads != 0)
    throw Error(where + ": hidden_size " + std::to_string(c.hidden_size) +
                " is not a multiple of num_attention_heads " + std::to_string(c.num_heads));
  c.layer_norm_eps = positive_number_or(config, "layer_norm_eps", c.layer_norm_eps, where);
  if (config.contains("max_position_embeddings"))
    c.max_position_embeddings = positive_int(config, "max_position_embeddings", where);
  if (c.max_position_embeddings < 3)
    throw Error(where + ": max_position_embeddings " + std::to_string(c.max_position_embeddings) +
                " leaves no room for a residue between [CLS] and [SEP]");
  if (config.contains("type_vocab_size"))
    c.type_vocab_size = positive_int(config, "type_vocab_size", where);
  c.dtype = string_or(config, "dtype", string_or(config, "torch_dtype", ""));
  return c;
}

BertConfig load_bert_config(const std::filesystem::path& config_path) {
  register_input(config_path.string());
  return parse_bert_config(read_regular_file(config_path.string(), "model config"),
                           config_json::quoted_path(config_path.string()));
}

}  // namespace seqfuse::models
