// Element types of the ESM-2 GPU engine's 16-bit data (GEMM and attention
// operands, the QKV and up-projection outputs), with their float
// conversions. Storage types are plain 16-bit words, converted by bit
// arithmetic, so one definition serves nvcc, hipcc and the host (no vendor
// half/bfloat16 headers). The residual stream, LayerNorm statistics, softmax
// and every accumulation stay fp32 (models/gpu_engine.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

// Device code must include ../vendor.cuh before this (HIP defines __host__ there).
#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::nn {

enum class NnType { f32, bf16, f16 };

struct bf16_t {
  std::uint16_t bits;
};
struct f16_t {
  std::uint16_t bits;
};

[[nodiscard]] constexpr std::size_t element_bytes(NnType type) noexcept {
  return type == NnType::f32 ? 4 : 2;
}

SF_HOST_DEVICE std::uint32_t float_bits(float x) {
  std::uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
SF_HOST_DEVICE float bits_float(std::uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

SF_HOST_DEVICE float to_float(float x) {
  return x;
}
SF_HOST_DEVICE float to_float(bf16_t x) {
  return bits_float(static_cast<std::uint32_t>(x.bits) << 16);
}
SF_HOST_DEVICE float to_float(f16_t x) {
  const std::uint32_t sign = static_cast<std::uint32_t>(x.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (x.bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = x.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// Round to nearest, ties to even (as torch's .to(bfloat16) / .half()).
SF_HOST_DEVICE bf16_t to_bf16(float x) {
  std::uint32_t u = float_bits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return {static_cast<std::uint16_t>((u >> 16) | 0x40u)};  // NaN stays (quiet) NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return {static_cast<std::uint16_t>(u >> 16)};
}

SF_HOST_DEVICE f16_t to_f16(float x) {
  const std::uint32_t u = float_bits(x);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return {static_cast<std::uint16_t>(sign | 0x7e00u)};   // NaN
  if (a >= 0x477ff000u) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // >= 65520: inf
  if (a < 0x38800000u) {                                                      // below 2^-14
    if (a <= 0x33000000u) return {sign};  // at most 2^-25: rounds to (even) zero
    const std::uint32_t exponent = a >> 23;
    const std::uint32_t significand = (a & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;  // 14 .. 24
    std::uint32_t r = significand >> shift;
    const std::uint32_t rest = significand & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (r & 1u))) ++r;
    return {static_cast<std::uint16_t>(sign | r)};
  }
  std::uint32_t r = (a - 0x38000000u) >> 13;  // rebias 127 -> 15
  const std::uint32_t rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (r & 1u))) ++r;
  return {static_cast<std::uint16_t>(sign | r)};
}

// from_float<T>(x): the store side, for kernels templated on their output.
template <class T>
SF_HOST_DEVICE T from_float(float x);
template <>
SF_HOST_DEVICE float from_float<float>(float x) {
  return x;
}
template <>
SF_HOST_DEVICE bf16_t from_float<bf16_t>(float x) {
  return to_bf16(x);
}
template <>
SF_HOST_DEVICE f16_t from_float<f16_t>(float x) {
  return to_f16(x);
}

}  // namespace seqfuse::gpu::nn
