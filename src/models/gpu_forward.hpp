// ESM-2's forward pass over one batch on the device, queued on the engine's
// stream: the fused embedding, then per layer LayerNorm, the QKV GEMM, QKV
// bias + rotary, variable-length attention, the output GEMM into the
// residual stream, LayerNorm, the up-projection with GELU and the down GEMM
// into the residual stream; the final LayerNorm. Hidden states are read out
// (gpu_readout.hpp) as they pass. GPU builds only.
#pragma once

#include <cstddef>

#include "gpu/nn/gemm.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "models/gpu_compute.hpp"
#include "models/gpu_readout.hpp"
#include "models/gpu_weights.hpp"
#include "models/gpu_workspace.hpp"

namespace seqfuse::models::esm_gpu {

class ForwardPass {
 public:
  // `gemm` and `stream` must outlive the pass.
  ForwardPass(const ModelShape& shape, double layer_norm_eps, nn::LinearGemm& gemm,
              gpu::Stream& stream)
      : shape_(shape), eps_(layer_norm_eps), gemm_(gemm), stream_(stream) {}

  // Whether no batch has run yet: the first one loads kernels and picks GEMM
  // algorithms, which SEQFUSE_TRACE shows op by op.
  [[nodiscard]] bool before_first_batch() const noexcept { return first_forward_; }

  // Queues the pass over the batch uploaded into `workspace`; returns
  // without waiting for the device.
  void run(const DeviceWeights& weights, const Workspace& workspace, const BatchReadout& batch);
  // BERT's pass (gpu_bert_forward.cpp): the absolute-position embedding and
  // its LayerNorm, then post-LN layers over the same ops and GEMMs.
  void run(const BertDeviceWeights& weights, const Workspace& workspace, const BatchReadout& batch);

 private:
  // require_gpu_success for the pass's ops; with SEQFUSE_TRACE, the host time
  // at which each op of the first batch's first layer was queued (first
  // launches load kernels and pick GEMM algorithms: that cost shows here).
  void queued(gpu::Status status, const char* op);
  // y [rows][out] = x w^T, with the weights' compute type; callers add the
  // bias and options.
  [[nodiscard]] nn::Linear linear(const void* x, const void* w, std::size_t in, std::size_t out,
                                  void* y, nn::NnType y_type, std::size_t rows) const;
  void run_linear(const nn::Linear& job);
  // The residual stream adds a block's output in its last GEMM (y += ...).
  void run_into_residual(nn::Linear job, const float* bias);

  ModelShape shape_;
  double eps_;
  nn::LinearGemm& gemm_;
  gpu::Stream& stream_;
  bool first_forward_ = true, trace_ops_ = false;
};

}  // namespace seqfuse::models::esm_gpu
