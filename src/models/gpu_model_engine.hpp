// The GPU engine of embed, one shell for every model family (gpu_engine.hpp
// says what it computes and how): device, stream, GEMM handle and batch
// memory (gpu_workspace.hpp); each batch checked, its metadata uploaded in
// one copy, the family's forward pass queued, the pooled readout
// (gpu_readout.hpp) brought back in one copy and split per sequence in input
// order. A family adds only what differs (GpuFamily below): its weights on
// the device and its forward pass, built from ForwardPass's shared steps
// (gpu_forward.hpp) and its own embedding and norm ops
// (gpu_esm_family.cpp, gpu_bert_family.cpp, gpu_t5_family.cpp). GPU builds
// only; callers make engines through make_gpu_engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "gpu/nn/gemm.hpp"
#include "gpu/runtime.hpp"
#include "models/engine.hpp"
#include "models/gpu_compute.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_forward.hpp"
#include "models/gpu_workspace.hpp"

namespace seqfuse::models::gpu_embed {

// What differs between families, over the weights a family object uploads
// when it is made (GpuModelSpec::upload) and keeps on the device.
class GpuFamily {
 public:
  virtual ~GpuFamily() = default;
  // Before batches whose longest sequence has `longest_tokens` tokens: throws
  // seqfuse::Error for a length the model cannot take (BERT's position
  // table), grows what depends on it (ESM-2's rotary tables) on `stream`.
  virtual void reserve(std::size_t longest_tokens, gpu::Stream& stream) = 0;
  // Queues the forward pass over the batch `pass` holds, handing every
  // hidden state the readout may ask for (0 to num_layers) to pass.capture.
  virtual void forward(ForwardPass& pass) = 0;
};

// How a family's sequences are framed and embedded, as the shell checks
// and uploads them.
struct TokenRules {
  explicit TokenRules(std::string special_tokens) : frame(std::move(special_tokens)) {}

  // The special tokens around the residues, for messages ("<cls> ... <eos>"),
  // and how many they are: the fewest tokens a sequence holds.
  std::string frame;
  std::size_t frame_tokens = 2;
  // ESM-2's token dropout: the <mask> id, whose rows the embedding zeroes
  // while scaling the others (Workspace::upload_batch).
  std::optional<std::int32_t> dropout_mask;
  // T5: the first token is a placeholder (no leading token of its own),
  // kept at zero and out of the other tokens' attention, as the CPU engine
  // keeps it (cpu_t5_forward.hpp): Workspace::upload_batch.
  bool leading_placeholder = false;
};

// A family's model as the shell needs it.
struct GpuModelSpec {
  std::string folder;  // the checkpoint, for messages
  ModelShape shape;
  int num_layers = 0, vocab_size = 0;
  TokenRules tokens;
  // Uploads the family's weights in the compute type on the engine's device
  // and stream (waiting for it; `host_threads` threads make the image) and
  // returns the family; called once, by the engine's constructor after its
  // checks. Throws seqfuse::Error when they do not fit `device_name`.
  std::function<std::unique_ptr<GpuFamily>(nn::NnType type, const std::string& device_name,
                                           gpu::Stream& stream, unsigned host_threads)>
      upload;
};

class GpuModelEngine final : public EmbeddingEngine {
 public:
  // Throws seqfuse::Error for a model the kernels do not take (odd
  // intermediate_size, a head size without an attention kernel) and for
  // weights that do not fit the device.
  GpuModelEngine(GpuModelSpec spec, const GpuEngineOptions& options);

  [[nodiscard]] std::string name() const override { return "gpu:" + std::to_string(device_); }
  [[nodiscard]] std::size_t preferred_batch_tokens() const override;
  void reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) override;
  void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout& readout,
             std::span<Embedding> out) override;

 private:
  static int select_device(int index) {
    gpu::use_device(index);
    return index;
  }
  // Throws for what the engine does not take (internal errors: the job
  // checks first); returns the batch's tokens and its longest sequence's.
  [[nodiscard]] std::pair<std::size_t, std::size_t> check_batch(
      std::span<const std::span<const std::int32_t>> sequences, const Readout& readout) const;

  // Initialized in this order: the device is current before the stream, the
  // GEMM handle and any buffer are made on it.
  int device_;
  GpuEngineOptions options_;
  GpuModelSpec spec_;
  gpu::Stream stream_;
  nn::LinearGemm gemm_;
  Workspace workspace_;
  ForwardPass forward_;
  std::unique_ptr<GpuFamily> family_;  // its weights on the device
  std::pmr::vector<float> output_host_;
};

// The engine over `model` (an EsmModel, BertModel, T5Model: its config's
// sizes, its folder), whose weights upload as Family(model, type,
// device_name, stream, host_threads): each family's make_gpu_engine.
template <class Family, class Model>
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_family_engine(const Model& model,
                                                                  TokenRules tokens,
                                                                  const GpuEngineOptions& options) {
  GpuModelSpec spec{
      model.folder,
      model_shape(model.config, options.compute),
      model.config.num_layers,
      model.config.vocab_size,
      std::move(tokens),
      [&model](nn::NnType type, const std::string& device_name, gpu::Stream& stream,
               unsigned host_threads) {
        return std::make_unique<Family>(model, type, device_name, stream, host_threads);
      },
  };
  return std::make_unique<GpuModelEngine>(std::move(spec), options);
}

}  // namespace seqfuse::models::gpu_embed
