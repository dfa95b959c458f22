// Scalar math of the ESM-2 forward pass shared by both engines: the CPU
// engine's loops (src/models/cpu_kernels.cpp, cpu_forward.cpp) and the GPU
// kernels here call these same functions, so CI on a machine without a GPU
// exercises the GPU's arithmetic. Plain float/double code: it vectorizes on
// the host and needs no vendor intrinsics on the device.
#pragma once

// Device code must include ../vendor.cuh before this (HIP defines __host__ there).
#include <cmath>

#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::nn {

// erf for x in [-4, 4] (outside, erf is +-1 in float): the rational
// approximation Eigen and XLA use, absolute error below 5e-7 (a few ulp near
// 1). Callers clamp (gelu_argument does).
SF_HOST_DEVICE float erf_clamped(float x) {
  const float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  // The device divides by a fast reciprocal (within 2 ulp; q is in
  // [-2.4, -0.014], far from __fdividef's problem range): an IEEE division
  // is a multi-instruction sequence with a slow path, and the GELU kernel is
  // bound by instructions, not bytes. The host divides exactly; the two
  // differ by at most a few ulp.
  return __fdividef(x * p, q);
#else
  return x * p / q;
#endif
}

// ESM's exact GELU, x * 0.5 * (1 + erf(x / sqrt 2)), in two steps so the CPU
// engine can run the clamp in its own loop (a compare in the erf loop stops
// GCC vectorizing it): gelu_with_argument(x, gelu_argument(x)).
SF_HOST_DEVICE float gelu_argument(float x) {
  const float a = x * 0.70710678118654752f;
  return a < -4.0f ? -4.0f : (a > 4.0f ? 4.0f : a);
}
SF_HOST_DEVICE float gelu_with_argument(float x, float clamped_argument) {
  return x * 0.5f * (1.0f + erf_clamped(clamped_argument));
}
SF_HOST_DEVICE float gelu_erf(float x) {
  return gelu_with_argument(x, gelu_argument(x));
}

// GELU's tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): what
// cuBLASLt's GELU epilogue computes, so the tiled GEMM's epilogue (and the
// tests' references) compute it too. Not ESM's GELU: within 4.8e-4 of it.
SF_HOST_DEVICE float gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}

// BERT's embedding sum before its LayerNorm, in BertEmbeddings' order:
// (word + token type) + absolute position, in fp32.
SF_HOST_DEVICE float bert_embedding_value(float word, float token_type, float position) {
  return (word + token_type) + position;
}

// One LayerNorm output (torch.nn.LayerNorm, biased variance): statistics in
// double, the normalized value rounded to float before the affine part.
// `inverse_std` is 1 / sqrt(variance + eps).
SF_HOST_DEVICE float layer_norm_value(float x, double mean, double inverse_std, float weight,
                                      float bias) {
  return static_cast<float>((x - mean) * inverse_std) * weight + bias;
}

// T5LayerNorm for one value (T5's RMS norm, src/models/t5_math.hpp uses it
// on the host): x * rsqrt(mean(x^2) + eps), rounded to float, times the
// weight (no mean subtraction, no bias). `inverse_rms` is
// 1 / sqrt(mean(x^2) + eps), its statistics taken in double.
SF_HOST_DEVICE float rms_norm_value(float x, double inverse_rms, float weight) {
  return static_cast<float>(x * inverse_rms) * weight;
}

}  // namespace seqfuse::gpu::nn
