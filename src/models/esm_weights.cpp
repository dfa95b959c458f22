#include "models/esm_weights.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/parallel.hpp"
#include "core/regular_file.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

namespace fs = std::filesystem;

// transformers' RotaryEmbedding: 1 / theta^(2i / dim), computed in fp32.
std::vector<float> default_inv_freq(int head_dim, double theta) {
  std::vector<float> values(static_cast<std::size_t>(head_dim / 2));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    values[i] = 1.0f / std::pow(static_cast<float>(theta), exponent);
  }
  return values;
}

}  // namespace

// Layer `i`'s weights, checked against config.json's shapes.
static void load_layer(const TensorStore& store, const std::string& prefix, const EsmConfig& c,
                       int i, EsmLayerWeights& layer) {
  const auto H = static_cast<std::uint64_t>(c.hidden_size);
  const auto I = static_cast<std::uint64_t>(c.intermediate_size);
  const auto half_head = static_cast<std::uint64_t>(c.head_dim() / 2);
  // transformers 5 writes the rotary buffer once, under a literal "*".
  const std::string shared_inv_freq =
      prefix + "encoder.layer.*.attention.self.rotary_embeddings.inv_freq";
  const std::string base = prefix + "encoder.layer." + std::to_string(i) + ".";
  read_norm(store, base + "attention.LayerNorm", H, layer.attention_norm_weight,
            layer.attention_norm_bias);
  read_linear(store, base + "attention.self.query", H, H, layer.query_weight, layer.query_bias);
  read_linear(store, base + "attention.self.key", H, H, layer.key_weight, layer.key_bias);
  read_linear(store, base + "attention.self.value", H, H, layer.value_weight, layer.value_bias);
  read_linear(store, base + "attention.output.dense", H, H, layer.attention_output_weight,
              layer.attention_output_bias);
  read_norm(store, base + "LayerNorm", H, layer.ffn_norm_weight, layer.ffn_norm_bias);
  read_linear(store, base + "intermediate.dense", I, H, layer.intermediate_weight,
              layer.intermediate_bias);
  read_linear(store, base + "output.dense", H, I, layer.output_weight, layer.output_bias);
  const std::string own_inv_freq = base + "attention.self.rotary_embeddings.inv_freq";
  if (store.contains(own_inv_freq)) {
    layer.rotary_inv_freq = store.read(own_inv_freq, {half_head});
  } else if (store.contains(shared_inv_freq)) {
    layer.rotary_inv_freq = store.read(shared_inv_freq, {half_head});
  } else {
    layer.rotary_inv_freq = default_inv_freq(c.head_dim(), c.rope_theta);
  }
}

EsmModel load_esm_model(const fs::path& folder, unsigned threads) {
  if (!fs::exists(folder))
    throw Error("model folder " + in_quotes(folder.string()) + " does not exist");
  if (!fs::is_directory(folder))
    throw Error("--model " + in_quotes(folder.string()) +
                " is not a folder (it should hold config.json and model.safetensors)");
  const fs::path config_path = folder / "config.json";
  if (!fs::exists(config_path)) throw Error("no config.json in " + in_quotes(folder.string()));

  EsmModel model;
  model.folder = folder.string();
  model.config = load_esm_config(config_path);
  const EsmConfig& c = model.config;
  const TensorStore store(folder);

  std::string prefix;
  if (store.contains("esm.embeddings.word_embeddings.weight")) {
    prefix = "esm.";
  } else if (!store.contains("embeddings.word_embeddings.weight")) {
    throw Error(store.where() + " has no ESM word embeddings ('esm.embeddings.word_embeddings." +
                "weight' or 'embeddings.word_embeddings.weight'): not an ESM-2 checkpoint");
  }
  check_layer_count(store, prefix, c.num_layers);

  const auto H = static_cast<std::uint64_t>(c.hidden_size);
  const std::string embeddings = prefix + "embeddings.word_embeddings.weight";
  model.stored_dtype = store.dtype_of(embeddings);
  model.word_embeddings = store.read(embeddings, {static_cast<std::uint64_t>(c.vocab_size), H});

  const auto layer_count = static_cast<std::size_t>(c.num_layers);
  model.layers.resize(layer_count);
  for_each_layer(layer_count, threads, [&](std::size_t i) {
    load_layer(store, prefix, c, static_cast<int>(i), model.layers[i]);
  });
  read_norm(store, prefix + "encoder.emb_layer_norm_after", H, model.final_norm_weight,
            model.final_norm_bias);
  return model;
}

}  // namespace seqfuse::models
