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
#include "models/safetensors.hpp"

namespace seqfuse::models {
namespace {

namespace fs = std::filesystem;
using Shape = std::vector<std::uint64_t>;

std::string in_quotes(const std::string& text) {
  return "'" + text + "'";
}

std::string shape_text(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// The tensors of one checkpoint: model.safetensors, or the shards listed by
// model.safetensors.index.json (the larger hub checkpoints are split).
class TensorStore {
 public:
  explicit TensorStore(const fs::path& folder) {
    // safetensors first, as transformers prefers it; PyTorch's format
    // (read without executing its pickle) when that is all there is.
    for (const char* base : {"model.safetensors", "pytorch_model.bin"}) {
      const fs::path single = folder / base;
      const fs::path index = folder / (std::string(base) + ".index.json");
      if (fs::exists(single)) {
        files_.push_back(std::make_unique<SafetensorsFile>(single.string()));
        break;
      }
      if (fs::exists(index)) {
        open_shards(folder, index);
        break;
      }
    }
    if (files_.empty())
      throw Error("no model.safetensors or pytorch_model.bin in " + in_quotes(folder.string()));
    for (const auto& file : files_)
      for (const TensorInfo& t : file->tensors()) owner_.emplace(t.name, file.get());
  }

  [[nodiscard]] bool contains(const std::string& name) const { return owner_.count(name) != 0; }
  [[nodiscard]] const std::map<std::string, const SafetensorsFile*>& names() const {
    return owner_;
  }

  // The tensor as fp32, after checking it has `expected` shape.
  [[nodiscard]] std::vector<float> read(const std::string& name, const Shape& expected) const {
    const auto it = owner_.find(name);
    if (it == owner_.end()) throw Error(where() + ": tensor " + in_quotes(name) + " is missing");
    const TensorInfo& info = *it->second->find(name);
    if (info.shape != expected)
      throw Error(in_quotes(it->second->path()) + ": tensor " + in_quotes(name) + " is " +
                  info.describe() + ", config.json needs " + shape_text(expected));
    return it->second->to_float(info);
  }

  [[nodiscard]] std::string dtype_of(const std::string& name) const {
    const auto it = owner_.find(name);
    return it == owner_.end() ? std::string() : it->second->find(name)->dtype;
  }

  [[nodiscard]] std::string where() const {
    return files_.size() == 1 ? in_quotes(files_.front()->path()) : "the checkpoint's shards";
  }

 private:
  void open_shards(const fs::path& folder, const fs::path& index) {
    register_input(index.string());
    const std::string text = read_regular_file(index.string(), "model index");
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw Error(in_quotes(index.string()) + " is not valid JSON (" + e.what() + ")");
    }
    if (!json.is_object() || !json.contains("weight_map") || !json["weight_map"].is_object())
      throw Error(in_quotes(index.string()) + " has no weight_map");
    std::map<std::string, bool> shards;
    for (const auto& [tensor, file] : json["weight_map"].items())
      if (file.is_string()) shards[file.get<std::string>()] = true;
    for (const auto& [file, unused] : shards) {
      if (file.find('/') != std::string::npos)
        throw Error(in_quotes(index.string()) + " names a shard outside the folder: " + file);
      files_.push_back(std::make_unique<SafetensorsFile>((folder / file).string()));
    }
  }

  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*> owner_;
};

// A checkpoint layer number N in "<prefix>encoder.layer.N.", or -1.
long layer_number(const std::string& name, const std::string& prefix) {
  const std::string head = prefix + "encoder.layer.";
  if (name.compare(0, head.size(), head) != 0) return -1;
  long value = -1;
  const char* first = name.data() + head.size();
  const auto [end, ec] = std::from_chars(first, name.data() + name.size(), value);
  return ec == std::errc() && end != first && *end == '.' ? value : -1;
}

// LayerNorm parameters: hub checkpoints say weight/bias, transformers 5
// save_pretrained says gamma/beta.
void read_norm(const TensorStore& store, const std::string& base, std::uint64_t hidden,
               std::vector<float>& weight, std::vector<float>& bias) {
  const bool gamma = !store.contains(base + ".weight") && store.contains(base + ".gamma");
  weight = store.read(base + (gamma ? ".gamma" : ".weight"), {hidden});
  bias = store.read(base + (gamma ? ".beta" : ".bias"), {hidden});
}

void read_linear(const TensorStore& store, const std::string& base, std::uint64_t out,
                 std::uint64_t in, std::vector<float>& weight, std::vector<float>& bias) {
  weight = store.read(base + ".weight", {out, in});
  bias = store.read(base + ".bias", {out});
}

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
  long stored_layers = 0;  // the highest layer number in the checkpoint, plus one
  for (const auto& [name, file] : store.names()) {
    const long n = layer_number(name, prefix);
    if (n >= c.num_layers)
      throw Error(store.where() + " holds " + in_quotes(name) + ", but config.json says " +
                  std::to_string(c.num_layers) + " layers");
    stored_layers = std::max(stored_layers, n + 1);
  }
  // Checked before anything is sized by num_layers: a config.json saying
  // 1073741824 layers used to end in a bare "out of host memory".
  if (stored_layers < c.num_layers)
    throw Error("config.json says " + std::to_string(c.num_layers) + " layers, but " +
                store.where() + " holds " + std::to_string(stored_layers));

  const auto H = static_cast<std::uint64_t>(c.hidden_size);
  const std::string embeddings = prefix + "embeddings.word_embeddings.weight";
  model.stored_dtype = store.dtype_of(embeddings);
  model.word_embeddings = store.read(embeddings, {static_cast<std::uint64_t>(c.vocab_size), H});

  const auto layer_count = static_cast<std::size_t>(c.num_layers);
  model.layers.resize(layer_count);
  // One layer per task; each writes only its own EsmLayerWeights, and the
  // store is read-only (mapped files). The first failing layer's error is
  // the one reported, as a sequential read would.
  std::vector<std::exception_ptr> errors(layer_count);
  const unsigned workers =
      std::min<unsigned>(threads ? threads : cpu_budget(),
                         static_cast<unsigned>(std::max<std::size_t>(layer_count, 1)));
  parallel_chunks(layer_count, 1, workers, [&](unsigned, std::size_t first, std::size_t) {
    try {
      load_layer(store, prefix, c, static_cast<int>(first), model.layers[first]);
    } catch (...) {
      errors[first] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  read_norm(store, prefix + "encoder.emb_layer_norm_after", H, model.final_norm_weight,
            model.final_norm_bias);
  return model;
}

}  // namespace seqfuse::models
