// The GPU engine of embed: a model family's forward pass (ESM-2, BERT,
// T5's encoder) on one device, one engine shell for every family
// (gpu_model_engine.hpp) built on the gpu/nn ops (fused embedding, add +
// LayerNorm, RMS norm, QKV bias + rotary, variable-length flash attention
// with T5's optional relative position bias, bias + GELU, gated GELU,
// pooling) and cuBLASLt GEMMs (a portable tiled GEMM on HIP;
// gpu_compute.hpp's gemm_backend_for). Plain C++: the CUDA/HIP side lives in
// gpu/.
//
// Numerics: the residual stream, LayerNorm, softmax statistics and every
// accumulation are fp32 in every compute type. ComputeType::fp32 keeps
// everything fp32 (no TF32): within float rounding of the CPU engine. bf16
// and fp16 (as HF's 16-bit pass) convert the weights once at load, feed the
// GEMMs 16-bit activations, let the QKV and up-projection GEMMs write 16
// bits (rotary and GELU compute in fp32 from them), and run attention on
// tensor cores with 16-bit Q, K, V and softmax weights (sm_80 and later).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "models/bert_weights.hpp"
#include "models/engine.hpp"
#include "models/esm_weights.hpp"
#include "models/protein_model.hpp"
#include "models/t5_weights.hpp"

namespace seqfuse::models {

struct GpuEngineOptions {
  int device = 0;
  ComputeType compute = ComputeType::bf16;
  // Engines sharing the device (--device gpu:0,0 runs two): each takes this
  // share of the memory preferred_batch_tokens() may plan for.
  std::size_t engines_on_device = 1;
  // Host threads that convert the weights for their upload (--threads,
  // shared out between the engines of a run).
  unsigned host_threads = 1;
  // The portable tiled GEMM kernel instead of cuBLASLt (always on HIP), so a
  // CUDA machine can test what HIP builds run.
  bool tiled_gemm = false;
  // Tests: every device activation and output buffer is filled with NaN
  // before each batch, so a value the engine forgets to write shows up.
  bool poison_buffers = false;
};

// Whether this build has a GPU backend (CUDA or HIP) at all.
[[nodiscard]] bool gpu_engine_built() noexcept;

// Readies the GPU toolkit for an engine over the checkpoint in `model_dir`
// on device `device` (-1: the first) in `compute`, on the calling thread:
// starts pinning the weight upload's staging blocks, loads cuBLASLt and has
// it choose its GEMM algorithms for the model's shapes (~0.2 s on an H100,
// mostly cuBLASLt loading kernels), so a caller can overlap that with the
// device start, the model load and the input.
// Nothing where the engine's GEMMs are not cuBLASLt's (gemm_backend_for).
// Never throws: make_gpu_engine and the first batch report any failure.
void warm_up_gpu_engine(const std::string& model_dir, int device, ComputeType compute) noexcept;

// Uploads the model's weights to the device. Throws seqfuse::Error when the
// build has no GPU backend, the model's head size has no attention kernel,
// or the weights do not fit the device. The engine keeps no reference to
// `model`: it may be freed once this returns.
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_gpu_engine(const EsmModel& model,
                                                               const GpuEngineOptions& options);
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_gpu_engine(const BertModel& model,
                                                               const GpuEngineOptions& options);
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_gpu_engine(const T5Model& model,
                                                               const GpuEngineOptions& options);
// The family's GPU engine.
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_gpu_engine(const ProteinModel& model,
                                                               const GpuEngineOptions& options);

}  // namespace seqfuse::models
