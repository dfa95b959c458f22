// The linear layers' GEMMs: y = x w^T (+ bias), torch.nn.Linear's layout
// (x [rows][in], w [out][in], y [rows][out], all row-major). Operands x and
// w are of one NnType; the bias and the accumulation are fp32, y is fp32 or,
// where the next op reads 16 bits anyway, the operands' type. CUDA
// builds run them through cuBLASLt (bias in its epilogue); HIP builds, and
// CUDA when asked (tests), through gemm_tiled.cu, a portable tiled kernel of
// ours (Debian 12 packages no rocBLAS or hipBLASLt); 16-bit operands on
// NVIDIA sm_80+ also, when asked, through gemm_mma.cu, a tensor-core kernel
// of ours that needs no vendor library. Plain C++: src/ calls it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

// What the GEMM applies to x w^T + bias before storing y.
enum class Activation {
  none,
  // GELU in its tanh form, 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))):
  // the form cuBLASLt's GELU epilogue computes (tests/gpu/test_gpu_gemm.cpp
  // checks it on the device), so the tiled kernel computes it too. It is
  // within 4.8e-4 of ESM's exact-erf GELU; the engine fuses it only where y
  // is 16-bit anyway (src/models/gpu_compute.hpp says why).
  gelu_tanh,
  // max(v, 0): T5's ReLU feed-forward (cuBLASLt's RELU epilogue).
  relu,
};

struct Linear {
  const void* x = nullptr;  // [rows][in]
  const void* w = nullptr;  // [out][in]
  NnType type = NnType::f32;
  std::size_t rows = 0, in = 0, out = 0;
  const void* bias = nullptr;  // [out], or null for none
  // fp32, or the operands' type: cuBLASLt's GELU epilogue takes a 16-bit y
  // only with a bias of the same type.
  NnType bias_type = NnType::f32;
  void* y = nullptr;            // [rows][out] as y_type
  NnType y_type = NnType::f32;  // f32, or the same type as x and w
  // y += x w^T (+ bias) instead of y = ...: the residual stream adds a
  // block's output in the GEMM (fp32 y only).
  bool accumulate = false;
  Activation activation = Activation::none;  // not with accumulate
};

// Device pointers passed to LinearGemm::run must be aligned to this many
// bytes (cuBLASLt's default assumption when it picks a kernel).
inline constexpr std::size_t kGemmAlignment = 256;

enum class GemmBackend {
  automatic,  // cuBLASLt on CUDA, the tiled kernel on HIP
  tiled,      // the tiled kernel everywhere
  // The tensor-core kernel of ours wherever linear_mma_takes the job, else
  // the tiled kernel; cuBLASLt is never loaded.
  mma,
};

// Chooses the vendor library's algorithm for each of these GEMM shapes now
// (only in, out, the types, the bias and the activation matter; the pointers
// are not read) and runs each once on a few zero rows, on the calling
// thread's current device. The first choices of a process cost ~0.1 s each
// (cuBLASLt loads candidate kernels), and a kernel's first launch loads its
// module (~5 ms each in traced runs); every LinearGemm of the process then
// reuses both, for any row count. Throws seqfuse::Error on a library or
// device failure; a no-op on HIP.
void warm_up_gemms(std::span<const Linear> shapes);

// Whether the op takes `job`'s combination of types and options (sizes and
// pointers are checked by run): y is fp32 or the operands' type, accumulate
// needs an fp32 y, an activation does not accumulate, and the bias is fp32 or
// of the operands' type.
[[nodiscard]] bool can_implement(const Linear& job);

// The portable kernel alone (the three-layer op; LinearGemm falls back to it).
[[nodiscard]] Status linear_tiled(const Linear& job, Stream& stream);

// The tensor-core kernel alone (gemm_mma.cu): whether it takes `job` (a CUDA
// build on an sm_80+ device, bf16 or fp16 operands, in and out multiples of
// 8, x and w 16-byte aligned, y 8-byte aligned), and the product itself
// (kInvalidArgument for a job it does not take).
[[nodiscard]] bool linear_mma_takes(const Linear& job);
[[nodiscard]] Status linear_mma(const Linear& job, Stream& stream);

// Holds the vendor library's handle, workspace and per-shape plans; one per
// engine, used from one thread.
class LinearGemm {
 public:
  explicit LinearGemm(GemmBackend backend);
  ~LinearGemm();
  LinearGemm(const LinearGemm&) = delete;
  LinearGemm& operator=(const LinearGemm&) = delete;

  [[nodiscard]] Status run(const Linear& job, Stream& stream);
  // "cuBLASLt", "tiled" or "mma".
  [[nodiscard]] std::string backend_name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace seqfuse::gpu::nn
