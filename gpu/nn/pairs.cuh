// Two adjacent elements of an activation as floats, and back: one 32-bit
// access for 16-bit types and one packed conversion where the target has it
// (sm_80+), two plain accesses otherwise. The element index must be even
// (4-byte aligned for 16-bit types, 8 for fp32). Device code only.
#pragma once

#include <cstdint>

#include "gpu/vendor.cuh"
#include "gpu/nn/mma.cuh"
#include "gpu/nn/nn_types.hpp"

namespace seqfuse::gpu::nn {

template <class T>
__device__ __forceinline__ void load_two(const T* p, float& a, float& b) {
  a = to_float(p[0]);
  b = to_float(p[1]);
}
template <>
__device__ __forceinline__ void load_two<float>(const float* p, float& a, float& b) {
  const float2 v = *reinterpret_cast<const float2*>(p);
  a = v.x;
  b = v.y;
}
template <class T>
__device__ __forceinline__ void store_two(T* p, float a, float b) {
  p[0] = from_float<T>(a);
  p[1] = from_float<T>(b);
}
template <>
__device__ __forceinline__ void store_two<float>(float* p, float a, float b) {
  *reinterpret_cast<float2*>(p) = float2{a, b};
}
#ifdef SEQFUSE_HAVE_MMA
template <>
__device__ __forceinline__ void load_two<bf16_t>(const bf16_t* p, float& a, float& b) {
  const std::uint32_t w = *reinterpret_cast<const std::uint32_t*>(p);
  a = bits_float(w << 16);
  b = bits_float(w & 0xffff0000u);
}
template <>
__device__ __forceinline__ void store_two<bf16_t>(bf16_t* p, float a, float b) {
  *reinterpret_cast<std::uint32_t*>(p) = pack_pair<bf16_t>(a, b);
}
template <>
__device__ __forceinline__ void store_two<f16_t>(f16_t* p, float a, float b) {
  *reinterpret_cast<std::uint32_t*>(p) = pack_pair<f16_t>(a, b);
}
#endif

}  // namespace seqfuse::gpu::nn
