#include "models/tensor_store.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/parallel.hpp"
#include "core/regular_file.hpp"

namespace seqfuse::models {

namespace fs = std::filesystem;

std::string in_quotes(const std::string& text) {
  return "'" + text + "'";
}

std::string shape_text(const TensorShape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

TensorStore::TensorStore(const fs::path& folder) {
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

std::vector<float> TensorStore::read(const std::string& name, const TensorShape& expected) const {
  const auto it = owner_.find(name);
  if (it == owner_.end()) throw Error(where() + ": tensor " + in_quotes(name) + " is missing");
  const TensorInfo& info = *it->second->find(name);
  if (info.shape != expected)
    throw Error(in_quotes(it->second->path()) + ": tensor " + in_quotes(name) + " is " +
                info.describe() + ", config.json needs " + shape_text(expected));
  return it->second->to_float(info);
}

TensorShape TensorStore::shape_of(const std::string& name) const {
  const auto it = owner_.find(name);
  return it == owner_.end() ? TensorShape() : it->second->find(name)->shape;
}

std::string TensorStore::dtype_of(const std::string& name) const {
  const auto it = owner_.find(name);
  return it == owner_.end() ? std::string() : it->second->find(name)->dtype;
}

std::string TensorStore::where() const {
  return files_.size() == 1 ? in_quotes(files_.front()->path()) : "the checkpoint's shards";
}

void TensorStore::open_shards(const fs::path& folder, const fs::path& index) {
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

long layer_number(const std::string& name, const std::string& prefix) {
  const std::string head = prefix + "encoder.layer.";
  if (name.compare(0, head.size(), head) != 0) return -1;
  long value = -1;
  const char* first = name.data() + head.size();
  const auto [end, ec] = std::from_chars(first, name.data() + name.size(), value);
  return ec == std::errc() && end != first && *end == '.' ? value : -1;
}

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

void check_layer_count(const TensorStore& store, const std::string& prefix, int num_layers) {
  long stored_layers = 0;  // the highest layer number in the checkpoint, plus one
  for (const auto& [name, file] : store.names()) {
    const long n = layer_number(name, prefix);
    if (n >= num_layers)
      throw Error(store.where() + " holds " + in_quotes(name) + ", but config.json says " +
                  std::to_string(num_layers) + " layers");
    stored_layers = std::max(stored_layers, n + 1);
  }
  if (stored_layers < num_layers)
    throw Error("config.json says " + std::to_string(num_layers) + " layers, but " + store.where() +
                " holds " + std::to_string(stored_layers));
}

void for_each_layer(std::size_t count, unsigned threads,
                    const std::function<void(std::size_t)>& load) {
  std::vector<std::exception_ptr> errors(count);
  const unsigned workers = std::min<unsigned>(
      threads ? threads : cpu_budget(), static_cast<unsigned>(std::max<std::size_t>(count, 1)));
  parallel_chunks(count, 1, workers, [&](unsigned, std::size_t first, std::size_t) {
    try {
      load(first);
    } catch (...) {
      errors[first] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace seqfuse::models
