// A T5 encoder checkpoint folder (ProtT5) loaded into fp32 host arrays:
// config.json, the tokenizer (spiece.model or tokenizer.json; t5_tokenizer.hpp)
// and the encoder's weights in any layout Hugging Face users hold:
// model.safetensors (sharded too) or pytorch_model.bin, written by
// T5EncoderModel or by the full T5ForConditionalGeneration / T5Model, whose
// decoder.* and lm_head.* are skipped. The token embedding is shared.weight
// or encoder.embed_tokens.weight (transformers ties them; the latter wins
// when both are stored, as it is what the encoder reads). T5 has no biases.
// Every tensor is checked against config.json; a missing or misshapen one is
// named in the error.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "models/t5_config.hpp"
#include "models/tokenizer.hpp"

namespace seqfuse::models {

// Matrices are row-major [out x in], as torch.nn.Linear stores them; I is
// num_heads * d_kv, H is d_model.
struct T5LayerWeights {
  std::vector<float> attention_norm_weight;                   // [H]
  std::vector<float> query_weight, key_weight, value_weight;  // [I x H] each
  std::vector<float> attention_output_weight;                 // [H x I]
  std::vector<float> ffn_norm_weight;                         // [H]
  std::vector<float> input_weight;        // wi, or wi_0 (gated: the GELU side) [d_ff x H]
  std::vector<float> gate_linear_weight;  // wi_1 (gated only; empty for relu) [d_ff x H]
  std::vector<float> output_weight;       // wo [H x d_ff]
};

struct T5Model {
  T5Config config;
  std::string folder;                   // where it was loaded from
  std::string stored_dtype;             // dtype of the token embedding: F32, F16 or BF16
  ResidueTokenizer tokenizer;           // from spiece.model or tokenizer.json
  std::vector<float> token_embeddings;  // [vocab x H]
  // Block 0's relative_attention_bias.weight [num_buckets x heads]: every
  // block uses block 0's position bias.
  std::vector<float> relative_attention_bias;
  std::vector<T5LayerWeights> layers;
  std::vector<float> final_norm_weight;  // encoder.final_layer_norm [H]
};

// Loads `folder` (config.json, tokenizer, weights). Throws seqfuse::Error;
// the tokenizer is read and checked against the embedding table before any
// weight is read. Layers are read on `threads` threads (0: all).
[[nodiscard]] T5Model load_t5_model(const std::filesystem::path& folder, unsigned threads = 0);

}  // namespace seqfuse::models
