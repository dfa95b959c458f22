// The steps every family's forward pass on the device is built from (a
// family composes them in its GpuFamily::forward, gpu_model_engine.hpp, with
// its own embedding and norm ops): the batch's activation buffers, each op
// queued and checked (and, with SEQFUSE_TRACE, timed op by op in the first
// batch's first layer), the attention block (QKV GEMM, QKV bias + query
// scale + optional rotary into heads, variable-length attention with T5's
// optional relative position bias, output GEMM into the residual stream),
// the feed-forward block (up-projection with GELU, or T5's ReLU or gated
// GELU; down GEMM into the residual stream) and the readout of hidden states
// as they pass (gpu_readout.hpp). GPU builds only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/nn/gemm.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "models/gpu_compute.hpp"
#include "models/gpu_readout.hpp"
#include "models/gpu_weights.hpp"
#include "models/gpu_workspace.hpp"

namespace seqfuse::models::gpu_embed {

class ForwardPass {
 public:
  // `gemm` and `stream` must outlive the pass.
  ForwardPass(const ModelShape& shape, nn::LinearGemm& gemm, gpu::Stream& stream)
      : shape_(shape), gemm_(gemm), stream_(stream) {}

  // Whether no batch has run yet: the first one loads kernels and picks GEMM
  // algorithms, which SEQFUSE_TRACE shows op by op.
  [[nodiscard]] bool before_first_batch() const noexcept { return first_forward_; }

  // The engine, around a family's pass over the batch uploaded into
  // `workspace` (both must outlive the pass's steps).
  void begin(const Workspace& workspace, const BatchReadout& batch);
  void end();

  // For the family's pass. The batch's sizes and buffers:
  [[nodiscard]] const ModelShape& shape() const noexcept { return shape_; }
  [[nodiscard]] std::size_t tokens() const noexcept { return batch_->tokens; }
  [[nodiscard]] gpu::Stream& stream() const noexcept { return stream_; }
  [[nodiscard]] const std::int32_t* ids() const;
  [[nodiscard]] const std::int32_t* positions() const;  // in each sequence, its first token 0
  [[nodiscard]] const double* scales() const;           // token dropout's, per token
  // [tokens][hidden] fp32: the hidden state between blocks, which the
  // attention and feed-forward steps add their outputs into.
  [[nodiscard]] float* residual() const;
  // [tokens][hidden] in the compute type: a norm's output for the next GEMM.
  [[nodiscard]] void* normed() const;
  // [tokens][hidden] fp32: a final norm's output, for the readout.
  [[nodiscard]] float* final_states() const;

  // Marks layer `index`'s ops: SEQFUSE_TRACE times the first batch's layer 0.
  void start_layer(std::size_t index) noexcept { trace_ops_ = first_forward_ && index == 0; }
  // require_gpu_success for a family's own op, named `op` in messages.
  void queued(gpu::Status status, const char* op);

  // residual += attention over `input` ([tokens][hidden], compute type):
  // rotated with `rotary` (ESM-2) at each token's position, or not rotated
  // (null: BERT's absolute positions were added at the embedding); scores
  // scaled by head_dim^-0.5.
  void attention(const void* input, const AttentionWeights& w, const RotaryTable* rotary);
  // T5's: no rotation, no score scale (T5 folds it into its weights), the
  // relative position bias added to the scores. `w.qkv_bias` and
  // `w.output_bias` are null (T5 has no biases): attention reads queries,
  // keys and values straight from the QKV GEMM's output.
  void attention(const void* input, const AttentionWeights& w, const PositionBiasTable& bias);
  // By the shape's FeedForwardKind: residual += down(GELU(up(input) + up
  // bias)) + down bias (ESM-2, BERT); down(ReLU(up(input))) or
  // down(GELU(up(input)) x gate(input)) (T5, no biases).
  void feed_forward(const void* input, const FeedForwardWeights& w);
  // Reads out `states` ([tokens][hidden] fp32) as hidden state `index`
  // (0: the embedding output; i: layer i's; num_layers: the last).
  void capture(const float* states, int index);

 private:
  // y [rows][out] = x w^T, with the weights' compute type; callers add the
  // bias and options.
  [[nodiscard]] nn::Linear linear(const void* x, const void* w, std::size_t in, std::size_t out,
                                  void* y, nn::NnType y_type) const;
  void run_linear(const nn::Linear& job);
  // The residual stream adds a block's output in its last GEMM (y += ...).
  void run_into_residual(nn::Linear job, const float* bias);
  // The attention block; `bias` null but for T5.
  void attend(const void* input, const AttentionWeights& w, const RotaryTable* rotary,
              const PositionBiasTable* bias);

  ModelShape shape_;
  nn::LinearGemm& gemm_;
  gpu::Stream& stream_;
  const Workspace* workspace_ = nullptr;
  const BatchReadout* batch_ = nullptr;
  bool first_forward_ = true, trace_ops_ = false;
};

}  // namespace seqfuse::models::gpu_embed
