// The tensors of one checkpoint folder, as every model family's loader
// reads them: model.safetensors, its shards (model.safetensors.index.json),
// or pytorch_model.bin (read without executing its pickle), by name, checked
// against the shape config.json implies and converted to fp32. Also the
// naming helpers the loaders share (layer numbers, LayerNorm's two spellings).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/safetensors.hpp"

namespace seqfuse::models {

using TensorShape = std::vector<std::uint64_t>;

// "'text'"
[[nodiscard]] std::string in_quotes(const std::string& text);
// "[a, b]"
[[nodiscard]] std::string shape_text(const TensorShape& shape);

class TensorStore {
 public:
  // Throws seqfuse::Error when the folder holds no checkpoint file.
  explicit TensorStore(const std::filesystem::path& folder);

  [[nodiscard]] bool contains(const std::string& name) const { return owner_.count(name) != 0; }
  [[nodiscard]] const std::map<std::string, const SafetensorsFile*>& names() const {
    return owner_;
  }

  // The tensor as fp32, after checking it has `expected` shape.
  [[nodiscard]] std::vector<float> read(const std::string& name, const TensorShape& expected) const;
  // The stored shape; empty when absent.
  [[nodiscard]] TensorShape shape_of(const std::string& name) const;
  [[nodiscard]] std::string dtype_of(const std::string& name) const;
  // The file (or "the checkpoint's shards"), for messages.
  [[nodiscard]] std::string where() const;

 private:
  void open_shards(const std::filesystem::path& folder, const std::filesystem::path& index);

  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*> owner_;
};

// A checkpoint layer number N in "<prefix>encoder.layer.N.", or -1.
[[nodiscard]] long layer_number(const std::string& name, const std::string& prefix);

// LayerNorm parameters: NAME.weight/.bias, or the old NAME.gamma/.beta
// (transformers 5's save_pretrained of ESM, TensorFlow-era BERT checkpoints).
void read_norm(const TensorStore& store, const std::string& base, std::uint64_t hidden,
               std::vector<float>& weight, std::vector<float>& bias);

// A torch.nn.Linear's weight [out x in] and bias [out].
void read_linear(const TensorStore& store, const std::string& base, std::uint64_t out,
                 std::uint64_t in, std::vector<float>& weight, std::vector<float>& bias);

// The highest "<prefix>encoder.layer.N." in the store plus one, after
// checking no N reaches `num_layers` and that all num_layers are there
// (before anything is sized by num_layers: a config.json saying 1073741824
// layers used to end in a bare "out of host memory").
void check_layer_count(const TensorStore& store, const std::string& prefix, int num_layers);

// Runs load(i) for every layer i in [0, count), one layer per task on
// `threads` threads (0: the machine's cores): a 650M checkpoint is 2.6 GB to
// convert. Each call must write only its own layer (the store is read-only,
// mapped files). The first failing layer's error is rethrown, as a
// sequential read would report it, whatever the thread count.
void for_each_layer(std::size_t count, unsigned threads,
                    const std::function<void(std::size_t)>& load);

}  // namespace seqfuse::models
