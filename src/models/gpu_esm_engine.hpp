// The GPU engine of embed (gpu_engine.hpp says what it computes and how):
// checks a batch, uploads its metadata, queues the forward pass and brings
// the readout back. Its parts: the weights on the device (gpu_weights.hpp),
// the batch memory (gpu_workspace.hpp), the forward pass (gpu_forward.hpp)
// and the readout (gpu_readout.hpp). GPU builds only; callers make it
// through make_gpu_engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <span>
#include <string>

#include "gpu/nn/gemm.hpp"
#include "gpu/runtime.hpp"
#include "models/engine.hpp"
#include "models/esm_config.hpp"
#include "models/esm_weights.hpp"
#include "models/gpu_compute.hpp"
#include "models/gpu_engine.hpp"
#include "models/gpu_forward.hpp"
#include "models/gpu_weights.hpp"
#include "models/gpu_workspace.hpp"

namespace seqfuse::models::esm_gpu {

class GpuEsmEngine final : public EmbeddingEngine {
 public:
  // Throws seqfuse::Error for a model the kernels do not take (odd
  // intermediate_size, a head size without an attention kernel) and for
  // weights that do not fit the device.
  GpuEsmEngine(const EsmModel& model, const GpuEngineOptions& options);

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

  // Initialized in this order: the device is current before the stream, the
  // GEMM handle and any buffer are made on it.
  int device_;
  GpuEngineOptions options_;
  EsmConfig config_;
  ModelShape shape_;
  gpu::Stream stream_;
  nn::LinearGemm gemm_;
  DeviceWeights weights_;
  Workspace workspace_;
  ForwardPass forward_;
  std::pmr::vector<float> output_host_;
};

}  // namespace seqfuse::models::esm_gpu
