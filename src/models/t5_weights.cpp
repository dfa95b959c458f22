#include "models/t5_weights.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "models/t5_tokenizer.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

namespace fs = std::filesystem;

// N in "encoder.block.N.", or -1.
long block_number(const std::string& name) {
  static const std::string head = "encoder.block.";
  if (name.compare(0, head.size(), head) != 0) return -1;
  long value = -1;
  const char* first = name.data() + head.size();
  const auto [end, ec] = std::from_chars(first, name.data() + name.size(), value);
  return ec == std::errc() && end != first && *end == '.' ? value : -1;
}

// As check_layer_count (tensor_store.hpp) for T5's "encoder.block.N." names:
// before anything is sized by num_layers.
void check_block_count(const TensorStore& store, int num_layers) {
  long stored = 0;
  for (const auto& [name, file] : store.names()) {
    const long n = block_number(name);
    if (n >= num_layers)
      throw Error(store.where() + " holds " + in_quotes(name) + ", but config.json says " +
                  std::to_string(num_layers) + " layers (num_layers)");
    stored = std::max(stored, n + 1);
  }
  if (stored < num_layers)
    throw Error("config.json says " + std::to_string(num_layers) + " layers (num_layers), but " +
                store.where() + " holds " + std::to_string(stored) + " encoder blocks");
}

void load_block(const TensorStore& store, const T5Config& c, int i, T5LayerWeights& layer) {
  const auto H = static_cast<std::uint64_t>(c.d_model);
  const auto I = static_cast<std::uint64_t>(c.inner_dim());
  const auto F = static_cast<std::uint64_t>(c.d_ff);
  const std::string base = "encoder.block." + std::to_string(i) + ".layer.";
  const std::string attention = base + "0.SelfAttention.";
  layer.attention_norm_weight = store.read(base + "0.layer_norm.weight", {H});
  layer.query_weight = store.read(attention + "q.weight", {I, H});
  layer.key_weight = store.read(attention + "k.weight", {I, H});
  layer.value_weight = store.read(attention + "v.weight", {I, H});
  layer.attention_output_weight = store.read(attention + "o.weight", {H, I});
  const std::string ffn = base + "1.DenseReluDense.";
  layer.ffn_norm_weight = store.read(base + "1.layer_norm.weight", {H});
  if (c.feed_forward == T5FeedForward::gated_gelu) {
    layer.input_weight = store.read(ffn + "wi_0.weight", {F, H});
    layer.gate_linear_weight = store.read(ffn + "wi_1.weight", {F, H});
  } else {
    layer.input_weight = store.read(ffn + "wi.weight", {F, H});
  }
  layer.output_weight = store.read(ffn + "wo.weight", {H, F});
}

}  // namespace

T5Model load_t5_model(const fs::path& folder, unsigned threads) {
  T5Config config = load_t5_config(folder / "config.json");
  // The tokenizer before the weights: a folder without it fails at once.
  ResidueTokenizer tokenizer =
      load_t5_tokenizer(folder, static_cast<std::size_t>(config.vocab_size));
  T5Model model{std::move(config), folder.string(), "", std::move(tokenizer), {}, {}, {}, {}};
  const T5Config& c = model.config;
  const TensorStore store(folder);

  std::string embedding = "encoder.embed_tokens.weight";
  if (!store.contains(embedding)) embedding = "shared.weight";
  if (!store.contains(embedding))
    throw Error(store.where() + " has no T5 token embedding ('shared.weight' or " +
                "'encoder.embed_tokens.weight'): not a T5 checkpoint");
  if (!store.contains("encoder.final_layer_norm.weight"))
    throw Error(store.where() + " has no 'encoder.final_layer_norm.weight': not a T5 encoder " +
                "checkpoint (seqfuse reads T5EncoderModel and T5ForConditionalGeneration names)");
  check_block_count(store, c.num_layers);

  const auto H = static_cast<std::uint64_t>(c.d_model);
  model.stored_dtype = store.dtype_of(embedding);
  model.token_embeddings = store.read(embedding, {static_cast<std::uint64_t>(c.vocab_size), H});
  model.relative_attention_bias =
      store.read("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                 {static_cast<std::uint64_t>(c.relative_attention_num_buckets),
                  static_cast<std::uint64_t>(c.num_heads)});
  model.final_norm_weight = store.read("encoder.final_layer_norm.weight", {H});

  model.layers.resize(static_cast<std::size_t>(c.num_layers));
  for_each_layer(model.layers.size(), threads, [&](std::size_t i) {
    load_block(store, c, static_cast<int>(i), model.layers[i]);
  });
  return model;
}

}  // namespace seqfuse::models
