// Warp-level tensor-core products for the attention kernel: one inline
// function over PTX `mma.sync.m16n8k16` (NVIDIA sm_80 and later), with the
// fragment layouts spelled out once here so kernels never touch PTX.
// SEQFUSE_HAVE_MMA says whether the device pass has them; on HIP and older
// NVIDIA targets it is unset, the functions below are not defined, and the
// host side picks the portable CUDA-core kernel instead (attention.cu), so
// no kernel is launched without its instructions.
//
// Fragment layouts of m16n8k16 (lane = 4 x group + pair, group 0..7, pair
// 0..3; each 32-bit register holds two 16-bit values, the lower column or
// k index in the low half):
//   A (16 x 16, row-major): a[0] = A[group][2 pair, +1], a[1] = A[group + 8][2 pair, +1],
//                           a[2] = A[group][8 + 2 pair, +1], a[3] = A[group + 8][8 + 2 pair, +1]
//   B (16 x 8, k x n):      b[0] = B[2 pair, +1][group], b[1] = B[8 + 2 pair, +1][group]
//   C, D (16 x 8, fp32):    c[0], c[1] = C[group][2 pair, +1], c[2], c[3] = C[group + 8][2 pair,
//   +1]
// C's layout for two adjacent n-tiles is A's layout for one k-step: a
// product's fp32 accumulators become the next product's A operand in
// registers (attention's P = softmax(S) feeding P V).
#pragma once

#include <cstdint>

#include "gpu/nn/nn_types.hpp"
#include "gpu/vendor.cuh"

#if defined(SEQFUSE_VENDOR_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define SEQFUSE_HAVE_MMA 1
#endif

namespace seqfuse::gpu::nn {

#ifdef SEQFUSE_HAVE_MMA

// Two floats as one register of two 16-bit values (`lo` in the low half),
// rounded to nearest even as to_bf16 / to_f16.
template <class T>
__device__ __forceinline__ std::uint32_t pack_pair(float lo, float hi);
template <>
__device__ __forceinline__ std::uint32_t pack_pair<bf16_t>(float lo, float hi) {
  std::uint32_t packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}
template <>
__device__ __forceinline__ std::uint32_t pack_pair<f16_t>(float lo, float hi) {
  std::uint32_t packed;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

// 2^x by the special-function unit (ex2.approx.ftz: 2 ulp; results below
// 2^-126 flush to 0, and 2^-inf is 0): softmax weights in (0, 1].
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ldmatrix: 8 x 8 tiles of 16-bit values from shared memory straight into
// fragment registers. Lane l gives the address of row l % 8 of tile l / 8
// (x4: four tiles, x2: two, lanes 0-15). Without .trans, lane t gets row t / 4,
// columns 2 (t % 4) and +1 of each tile (an A or B fragment register); with
// .trans, rows 2 (t % 4) and +1 of column t / 4 (B from a row-major k x n).
__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void load_tiles_x4(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void load_tiles_x4_trans(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void load_tiles_x2_trans(std::uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(row)));
}

// cp.async: 16 bytes from global to shared memory without passing through
// registers, so a tile's load runs while the warp computes. `bytes` 0 writes
// 16 zero bytes and reads nothing (rows past a sequence). Loads issued since
// the last commit form one group; wait_async_groups<N> returns once at most
// N groups are still in flight (the caller then synchronizes the block
// before other threads read what arrived).
__device__ __forceinline__ void copy_async16(void* shared, const void* global, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_address(shared)),
               "l"(global), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_async_group() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait_async_groups() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// d += a b over one 16 x 8 x 16 tile, fp32 accumulation.
template <class T>
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], const std::uint32_t (&a)[4],
                                            const std::uint32_t (&b)[2]);
template <>
__device__ __forceinline__ void mma_16x8x16<bf16_t>(float (&d)[4], const std::uint32_t (&a)[4],
                                                    const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <>
__device__ __forceinline__ void mma_16x8x16<f16_t>(float (&d)[4], const std::uint32_t (&a)[4],
                                                   const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#endif  // SEQFUSE_HAVE_MMA

}  // namespace seqfuse::gpu::nn
