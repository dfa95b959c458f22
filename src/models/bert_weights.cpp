#include "models/bert_weights.hpp"

#include "core/error.hpp"
#include "models/bert_tokenizer.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

namespace fs = std::filesystem;

void load_layer(const TensorStore& store, const std::string& prefix, const BertConfig& c, int i,
                BertLayerWeights& layer) {
  const auto H = static_cast<std::uint64_t>(c.hidden_size);
  const auto I = static_cast<std::uint64_t>(c.intermediate_size);
  const std::string base = prefix + "encoder.layer." + std::to_string(i) + ".";
  read_linear(store, base + "attention.self.query", H, H, layer.query_weight, layer.query_bias);
  read_linear(store, base + "attention.self.key", H, H, layer.key_weight, layer.key_bias);
  read_linear(store, base + "attention.self.value", H, H, layer.value_weight, layer.value_bias);
  read_linear(store, base + "attention.output.dense", H, H, layer.attention_output_weight,
              layer.attention_output_bias);
  read_norm(store, base + "attention.output.LayerNorm", H, layer.attention_norm_weight,
            layer.attention_norm_bias);
  read_linear(store, base + "intermediate.dense", I, H, layer.intermediate_weight,
              layer.intermediate_bias);
  read_linear(store, base + "output.dense", H, I, layer.output_weight, layer.output_bias);
  read_norm(store, base + "output.LayerNorm", H, layer.output_norm_weight, layer.output_norm_bias);
}

}  // namespace

BertModel load_bert_model(const fs::path& folder, unsigned threads) {
  BertModel model;
  model.folder = folder.string();
  model.config = load_bert_config(folder / "config.json");
  const BertConfig& c = model.config;
  // The tokenizer before the weights: a folder without it fails at once.
  model.vocabulary = read_bert_vocabulary(folder);
  (void)bert_tokenizer(model.vocabulary, static_cast<std::size_t>(c.vocab_size),
                       in_quotes((folder / "vocab.txt").string()));
  const TensorStore store(folder);

  std::string prefix;
  if (store.contains("bert.embeddings.word_embeddings.weight")) {
    prefix = "bert.";
  } else if (!store.contains("embeddings.word_embeddings.weight")) {
    throw Error(store.where() + " has no BERT word embeddings ('bert.embeddings.word_embeddings." +
                "weight' or 'embeddings.word_embeddings.weight'): not a BERT checkpoint");
  }
  check_layer_count(store, prefix, c.num_layers);

  const auto H = static_cast<std::uint64_t>(c.hidden_size);
  const std::string embeddings = prefix + "embeddings.";
  model.stored_dtype = store.dtype_of(embeddings + "word_embeddings.weight");
  model.word_embeddings = store.read(embeddings + "word_embeddings.weight",
                                     {static_cast<std::uint64_t>(c.vocab_size), H});
  model.position_embeddings =
      store.read(embeddings + "position_embeddings.weight",
                 {static_cast<std::uint64_t>(c.max_position_embeddings), H});
  std::vector<float> types = store.read(embeddings + "token_type_embeddings.weight",
                                        {static_cast<std::uint64_t>(c.type_vocab_size), H});
  types.resize(c.hidden_size);  // row 0: every token of a protein is of type 0
  model.token_type_embedding = std::move(types);
  read_norm(store, embeddings + "LayerNorm", H, model.embedding_norm_weight,
            model.embedding_norm_bias);

  model.layers.resize(static_cast<std::size_t>(c.num_layers));
  for_each_layer(model.layers.size(), threads, [&](std::size_t i) {
    load_layer(store, prefix, c, static_cast<int>(i), model.layers[i]);
  });
  return model;
}

}  // namespace seqfuse::models
