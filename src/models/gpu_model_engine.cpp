#include "models/gpu_model_engine.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/report.hpp"
#include "gpu/nn/attention.hpp"
#include "models/gpu_readout.hpp"

namespace seqfuse::models::gpu_embed {

GpuModelEngine::GpuModelEngine(GpuModelSpec spec, const GpuEngineOptions& options)
    : device_(select_device(options.device)),
      options_(options),
      spec_(std::move(spec)),
      gemm_(gemm_backend_for(options.tiled_gemm)),
      workspace_(spec_.shape, spec_.tokens.frame_tokens, spec_.tokens.leading_placeholder),
      forward_(spec_.shape, gemm_, stream_),
      output_host_(gpu::pinned_resource()) {
  const ModelShape& shape = spec_.shape;
  if (shape.intermediate % 2 != 0)
    throw Error("the GPU engine takes an even intermediate_size; " + spec_.folder + " has " +
                std::to_string(shape.intermediate) + ": use --device cpu");
  if (!nn::attention_head_dim_supported(shape.head_dim) ||
      // ESM-2 and BERT split the hidden size into their heads.
      (shape.feed_forward == FeedForwardKind::bias_gelu && shape.inner != shape.hidden))
    throw Error("the GPU engine's attention is built for head sizes 16, 24, 32, 64 and 128; " +
                spec_.folder + " has " + std::to_string(shape.inner) + " / " +
                std::to_string(shape.heads) + " heads: use --device cpu");
  // The QKV split's threads: one per 4 channels of a token's heads.
  if (shape.inner % 4 != 0 || shape.inner > 4096)
    throw Error("the GPU engine takes at most 4,096 attention channels (heads x head size); " +
                spec_.folder + " has " + std::to_string(shape.inner) + ": use --device cpu");
  trace("embed: engine: device, stream and GEMM (" + gemm_.backend_name() + ") ready");
  family_ = spec_.upload(shape.type, name(), stream_, std::max(options.host_threads, 1u));
  spec_.upload = nullptr;  // it may refer to the host model, which the caller may free
  trace("embed: engine: weights uploaded");
}

// 65,536 tokens keep every multiprocessor busy through each op (the 8M
// model's forward pass in bf16 on an H100: 4,096 ran at half its speed,
// 16,384 8 % slower; bench/results/2026-11-23-nvidia-h100-embed-bench1.md),
// as far as half the free memory holds them (a 3B model needs ~10 GB),
// shared out between the engines on the device.
std::size_t GpuModelEngine::preferred_batch_tokens() const {
  constexpr std::size_t kMost = 65536, kLeast = 4096;
  const ModelShape& shape = spec_.shape;
  const ActivationLayout most = lay_out(kMost, spec_.tokens.frame_tokens, shape);
  const std::size_t per_token = most.total / kMost + 1;
  const std::size_t fits = gpu::free_device_memory() / 2 /
                           std::max<std::size_t>(options_.engines_on_device, 1) / per_token;
  return std::clamp(fits / 1024 * 1024, kLeast, kMost);
}

void GpuModelEngine::reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) {
  family_->reserve(longest_sequence_tokens, stream_);
  workspace_.reserve(std::max(batch_tokens, longest_sequence_tokens), longest_sequence_tokens,
                     name());
}

std::pair<std::size_t, std::size_t> GpuModelEngine::check_batch(
    std::span<const std::span<const std::int32_t>> sequences, const Readout& readout) const {
  for (int layer : readout.layers)
    if (layer < 0 || layer > spec_.num_layers)
      throw Error("internal: hidden state " + std::to_string(layer) + " of a " +
                  std::to_string(spec_.num_layers) + "-layer model");
  std::size_t tokens = 0, longest = 0;
  for (const auto& s : sequences) {
    if (s.size() < spec_.tokens.frame_tokens)
      throw Error("internal: a sequence of " + std::to_string(s.size()) +
                  " tokens; the engine takes " + spec_.tokens.frame);
    for (std::int32_t id : s)
      if (id < 0 || id >= spec_.vocab_size)
        throw Error("internal: token id " + std::to_string(id) + " outside the vocabulary");
    tokens += s.size();
    longest = std::max(longest, s.size());
  }
  return {tokens, longest};
}

void GpuModelEngine::embed(std::span<const std::span<const std::int32_t>> sequences,
                           const Readout& readout, std::span<Embedding> out) {
  if (out.size() != sequences.size())
    throw Error("internal: embed() got " + std::to_string(out.size()) + " outputs for " +
                std::to_string(sequences.size()) + " sequences");
  if (sequences.empty()) return;
  const auto [tokens, longest] = check_batch(sequences, readout);
  reserve(longest, tokens);
  workspace_.upload_batch(sequences, spec_.tokens.dropout_mask, stream_);
  if (forward_.before_first_batch()) trace("embed: first batch: arena ready, metadata queued");

  BatchReadout batch;
  batch.readout = &readout;
  batch.sequences = sequences.size();
  batch.tokens = tokens;
  batch.rows_total = readout_rows(readout.pooling, sequences.size(), tokens);
  batch.hidden = spec_.shape.hidden;
  const std::size_t output_floats = batch.output_floats();
  workspace_.grow_output(output_floats * sizeof(float));
  batch.offsets = workspace_.at<const std::int32_t>(workspace_.layout().offsets);
  batch.output = workspace_.output();
  if (options_.poison_buffers) workspace_.poison(stream_);

  forward_.begin(workspace_, batch);
  family_->forward(forward_);
  forward_.end();
  trace("embed: batch queued on the device");

  if (output_floats > 0) {
    output_host_.resize(output_floats);
    gpu::copy_to_host(output_host_.data(), batch.output, output_floats * sizeof(float), stream_);
  }
  stream_.synchronize();
  trace("embed: batch done on the device");
  unpack_readout(output_host_.data(), sequences, batch, out);
}

}  // namespace seqfuse::models::gpu_embed
