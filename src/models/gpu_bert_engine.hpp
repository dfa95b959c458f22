// The GPU engine for BERT protein models (ProtBERT): the ESM-2 engine's
// parts (gpu_engine.hpp says how it computes: fp32 exact, 16-bit GEMMs and
// tensor-core attention, GELU fused into the up-projection in 16 bits) with
// BERT's weights (absolute positions, post-LN) and forward pass
// (gpu_bert_forward.cpp). GPU builds only; made through make_gpu_engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <span>
#include <string>

#include "gpu/nn/gemm.hpp"
#include "gpu/runtime.hpp"
#include "models/bert_weights.hpp"
#include "models/engine.hpp"
#include "models/gpu_compute.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_forward.hpp"
#include "models/gpu_weights.hpp"
#include "models/gpu_workspace.hpp"

namespace seqfuse::models::esm_gpu {

class GpuBertEngine final : public EmbeddingEngine {
 public:
  // Throws seqfuse::Error for a model the kernels do not take and for
  // weights that do not fit the device.
  GpuBertEngine(const BertModel& model, const GpuEngineOptions& options);

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

  int device_;
  GpuEngineOptions options_;
  BertConfig config_;
  ModelShape shape_;
  gpu::Stream stream_;
  nn::LinearGemm gemm_;
  BertDeviceWeights weights_;
  Workspace workspace_;
  ForwardPass forward_;
  std::pmr::vector<float> output_host_;
};

}  // namespace seqfuse::models::esm_gpu
