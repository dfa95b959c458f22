#include "models/gpu_bert_engine.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/report.hpp"
#include "gpu/nn/attention.hpp"
#include "models/gpu_readout.hpp"

namespace seqfuse::models::esm_gpu {

GpuBertEngine::GpuBertEngine(const BertModel& model, const GpuEngineOptions& options)
    : device_(select_device(options.device)),
      options_(options),
      config_(model.config),
      shape_(model_shape(model.config, options.compute)),
      gemm_(options.tiled_gemm ? nn::GemmBackend::tiled : nn::GemmBackend::automatic),
      workspace_(shape_),
      forward_(shape_, model.config.layer_norm_eps, gemm_, stream_),
      output_host_(gpu::pinned_resource()) {
  if (shape_.intermediate % 2 != 0)
    throw Error("the GPU engine takes an even intermediate_size; " + model.folder + " has " +
                std::to_string(shape_.intermediate) + ": use --device cpu");
  if (!nn::attention_head_dim_supported(shape_.head_dim) ||
      shape_.head_dim * shape_.heads != shape_.hidden)
    throw Error("the GPU engine's attention is built for head sizes 16, 24, 32 and 64; " +
                model.folder + " has " + std::to_string(shape_.hidden) + " / " +
                std::to_string(shape_.heads) + " heads: use --device cpu");
  weights_ = upload_weights(model, shape_.type, name(), stream_);
  trace("embed: engine: weights uploaded");
}

// As the ESM-2 engine: 65,536 tokens where half the free memory holds them.
std::size_t GpuBertEngine::preferred_batch_tokens() const {
  constexpr std::size_t kMost = 65536, kLeast = 4096;
  const std::size_t per_token =
      lay_out(kMost, shape_.hidden, shape_.intermediate, shape_.type).total / kMost + 1;
  const std::size_t fits = gpu::free_device_memory() / 2 /
                           std::max<std::size_t>(options_.engines_on_device, 1) / per_token;
  return std::clamp(fits / 1024 * 1024, kLeast, kMost);
}

void GpuBertEngine::reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) {
  if (longest_sequence_tokens > static_cast<std::size_t>(config_.max_position_embeddings))
    throw Error("a sequence of " + std::to_string(longest_sequence_tokens) +
                " tokens is longer than the model's position table (max_position_embeddings " +
                std::to_string(config_.max_position_embeddings) + ")");
  workspace_.reserve(std::max(batch_tokens, longest_sequence_tokens), longest_sequence_tokens,
                     name());
}

void GpuBertEngine::embed(std::span<const std::span<const std::int32_t>> sequences,
                          const Readout& readout, std::span<Embedding> out) {
  if (out.size() != sequences.size())
    throw Error("internal: embed() got " + std::to_string(out.size()) + " outputs for " +
                std::to_string(sequences.size()) + " sequences");
  if (sequences.empty()) return;
  const int num_layers = config_.num_layers;
  for (int layer : readout.layers)
    if (layer < 0 || layer > num_layers)
      throw Error("internal: hidden state " + std::to_string(layer) + " of a " +
                  std::to_string(num_layers) + "-layer model");
  std::size_t tokens = 0, longest = 0;
  for (const auto& s : sequences) {
    if (s.size() < 2)
      throw Error("internal: a sequence of " + std::to_string(s.size()) +
                  " tokens; the engine takes [CLS] ... [SEP]");
    for (std::int32_t id : s)
      if (id < 0 || id >= config_.vocab_size)
        throw Error("internal: token id " + std::to_string(id) + " outside the vocabulary");
    tokens += s.size();
    longest = std::max(longest, s.size());
  }
  reserve(longest, tokens);
  workspace_.upload_batch(sequences, stream_);

  BatchReadout batch;
  batch.readout = &readout;
  batch.sequences = sequences.size();
  batch.tokens = tokens;
  batch.rows_total = readout_rows(readout.pooling, sequences.size(), tokens);
  batch.hidden = shape_.hidden;
  const std::size_t output_floats = batch.output_floats();
  workspace_.grow_output(output_floats * sizeof(float));
  batch.offsets = workspace_.at<const std::int32_t>(workspace_.layout().offsets);
  batch.output = workspace_.output();
  if (options_.poison_buffers) workspace_.poison(stream_);

  forward_.run(weights_, workspace_, batch);
  if (output_floats > 0) {
    output_host_.resize(output_floats);
    gpu::copy_to_host(output_host_.data(), batch.output, output_floats * sizeof(float), stream_);
  }
  stream_.synchronize();
  unpack_readout(output_host_.data(), sequences, batch, out);
}

}  // namespace seqfuse::models::esm_gpu
