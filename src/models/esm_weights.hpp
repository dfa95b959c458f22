// An ESM-2 checkpoint folder loaded into fp32 host arrays: config.json plus
// model.safetensors in either layout Hugging Face writes:
//   hub (EsmForMaskedLM): "esm." prefix, LayerNorm.weight/.bias, one
//     rotary inv_freq per layer, lm_head.* and contact_head.* to skip;
//   transformers 5 save_pretrained (EsmModel): no prefix, LayerNorm.gamma/
//     .beta, one shared "encoder.layer.*...inv_freq".
// Every tensor is checked against config.json; a missing or misshapen one is
// named in the error. Plain vectors, so any engine (CPU, GPU) can take them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "models/esm_config.hpp"

namespace seqfuse::models {

// Matrices are row-major [out x in], as torch.nn.Linear stores them.
struct EsmLayerWeights {
  std::vector<float> attention_norm_weight, attention_norm_bias;      // [H]
  std::vector<float> query_weight, query_bias;                        // [H x H], [H]
  std::vector<float> key_weight, key_bias;                            // [H x H], [H]
  std::vector<float> value_weight, value_bias;                        // [H x H], [H]
  std::vector<float> attention_output_weight, attention_output_bias;  // [H x H], [H]
  std::vector<float> ffn_norm_weight, ffn_norm_bias;                  // [H]
  std::vector<float> intermediate_weight, intermediate_bias;          // [I x H], [I]
  std::vector<float> output_weight, output_bias;                      // [H x I], [H]
  // Rotary inverse frequencies [head_dim / 2], the stored values (rounded to
  // the checkpoint's dtype, as transformers then uses them), or computed from
  // rope_theta when the checkpoint has none.
  std::vector<float> rotary_inv_freq;
};

struct EsmModel {
  EsmConfig config;
  std::string folder;                  // where it was loaded from
  std::string stored_dtype;            // dtype of the word embeddings: F32, F16 or BF16
  std::vector<float> word_embeddings;  // [vocab x H]
  std::vector<EsmLayerWeights> layers;
  std::vector<float> final_norm_weight, final_norm_bias;  // emb_layer_norm_after [H]
};

// Loads DIR/config.json and DIR/model.safetensors. Throws seqfuse::Error.
// The layers are read and converted to fp32 on `threads` threads (0: the
// machine's cores): a 650M checkpoint is 2.6 GB. Errors name the first bad
// tensor in layer order, whatever the thread count.
[[nodiscard]] EsmModel load_esm_model(const std::filesystem::path& folder, unsigned threads = 0);

}  // namespace seqfuse::models
