// A BERT protein model checkpoint folder (ProtBERT) loaded into fp32 host
// arrays: config.json, vocab.txt and the weights in any layout Hugging Face
// users hold: model.safetensors (sharded too) or pytorch_model.bin; names
// unprefixed (BertModel) or under "bert." (BertForMaskedLM,
// BertForPreTraining, whose cls.* heads are skipped); LayerNorm.weight/.bias
// or the old LayerNorm.gamma/.beta; pooler.* skipped (embeddings are hidden
// states). Every tensor is checked against config.json; a missing or
// misshapen one is named in the error.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "models/bert_config.hpp"

namespace seqfuse::models {

// Matrices are row-major [out x in], as torch.nn.Linear stores them.
struct BertLayerWeights {
  std::vector<float> query_weight, query_bias;                        // [H x H], [H]
  std::vector<float> key_weight, key_bias;                            // [H x H], [H]
  std::vector<float> value_weight, value_bias;                        // [H x H], [H]
  std::vector<float> attention_output_weight, attention_output_bias;  // [H x H], [H]
  std::vector<float> attention_norm_weight, attention_norm_bias;      // post-attention [H]
  std::vector<float> intermediate_weight, intermediate_bias;          // [I x H], [I]
  std::vector<float> output_weight, output_bias;                      // [H x I], [H]
  std::vector<float> output_norm_weight, output_norm_bias;            // post-FFN [H]
};

struct BertModel {
  BertConfig config;
  std::string folder;                       // where it was loaded from
  std::string stored_dtype;                 // dtype of the word embeddings: F32, F16 or BF16
  std::vector<std::string> vocabulary;      // vocab.txt, id = line number
  std::vector<float> word_embeddings;       // [vocab x H]
  std::vector<float> position_embeddings;   // [max_position_embeddings x H]
  std::vector<float> token_type_embedding;  // [H]: token type 0's row, the only one used
  std::vector<float> embedding_norm_weight, embedding_norm_bias;  // [H]
  std::vector<BertLayerWeights> layers;
};

// Loads `folder` (config.json, vocab.txt, weights). Throws seqfuse::Error;
// vocab.txt is checked (present, as many tokens as the embedding table)
// before any weight is read. Layers are read on `threads` threads (0: all).
[[nodiscard]] BertModel load_bert_model(const std::filesystem::path& folder, unsigned threads = 0);

}  // namespace seqfuse::models
