// Max-plus helpers for dynamic programming. Hopper (sm_90) has DPX
// instructions for these; every other target, HIP included, gets the
// portable form. Kernels call these functions, never the intrinsics.
//
// The packed 16-bit forms (two signed 16-bit lanes in one 32-bit word, low
// half = lane 0) are SF_HOST_DEVICE: their portable form is plain C++ on the
// two halves, so a CPU-only build (which includes this header without a GPU
// compiler) runs exactly the arithmetic the kernels run. Lane arithmetic
// wraps modulo 2^16 like the DPX instructions (add.s16x2 has no .sat), and
// the lanes never interact.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#endif

#include <cstdint>

#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu {

#if defined(SEQFUSE_VENDOR_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SEQFUSE_HAVE_DPX 1
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)

// max(a + b, c)
__device__ __forceinline__ int add_max(int a, int b, int c) {
#ifdef SEQFUSE_HAVE_DPX
  return __viaddmax_s32(a, b, c);
#else
  return max(a + b, c);
#endif
}

// max(a, b, c)
__device__ __forceinline__ int max3(int a, int b, int c) {
#ifdef SEQFUSE_HAVE_DPX
  return __vimax3_s32(a, b, c);
#else
  return max(a, max(b, c));
#endif
}

// max(a, b, c, 0)
__device__ __forceinline__ int max3_relu(int a, int b, int c) {
#ifdef SEQFUSE_HAVE_DPX
  return __vimax3_s32_relu(a, b, c);
#else
  return max(max(a, 0), max(b, c));
#endif
}

#endif  // a GPU compiler

// ---- Two signed 16-bit lanes per word (s16x2) ----

// Lane 0 (low half) and lane 1 (high half) as ints, sign-extended.
SF_HOST_DEVICE int lane0_s16(std::uint32_t x) {
  const int v = static_cast<int>(x & 0xffffu);
  return v >= 0x8000 ? v - 0x10000 : v;
}
SF_HOST_DEVICE int lane1_s16(std::uint32_t x) {
  const int v = static_cast<int>(x >> 16);
  return v >= 0x8000 ? v - 0x10000 : v;
}
// Two ints to one word; each keeps its low 16 bits (so it wraps like the
// lane arithmetic when out of range).
SF_HOST_DEVICE std::uint32_t pack_s16x2(int lane0, int lane1) {
  return (static_cast<std::uint32_t>(lane0) & 0xffffu) | (static_cast<std::uint32_t>(lane1) << 16);
}
SF_HOST_DEVICE std::uint32_t splat_s16x2(int v) {
  return pack_s16x2(v, v);
}

namespace s16x2_portable {
SF_HOST_DEVICE int max_of(int a, int b) {
  return a > b ? a : b;
}
// The low 16 bits of v as a signed 16-bit value (wrap-around).
SF_HOST_DEVICE int wrap16(int v) {
  return lane0_s16(static_cast<std::uint32_t>(v));
}
// op(a, b, c) on each 16-bit lane, the results packed back.
template <class Op>
SF_HOST_DEVICE std::uint32_t lanewise(std::uint32_t a, std::uint32_t b, std::uint32_t c, Op op) {
  return pack_s16x2(op(lane0_s16(a), lane0_s16(b), lane0_s16(c)),
                    op(lane1_s16(a), lane1_s16(b), lane1_s16(c)));
}
// Op functors, the lanes' arithmetic.
struct AddMax {
  SF_HOST_DEVICE int operator()(int a, int b, int c) const { return max_of(wrap16(a + b), c); }
};
struct AddMaxRelu {
  SF_HOST_DEVICE int operator()(int a, int b, int c) const {
    return max_of(max_of(wrap16(a + b), c), 0);
  }
};
struct Add {
  SF_HOST_DEVICE int operator()(int a, int b, int) const { return wrap16(a + b); }
};
struct Max3 {
  SF_HOST_DEVICE int operator()(int a, int b, int c) const { return max_of(a, max_of(b, c)); }
};
struct Max3Relu {
  SF_HOST_DEVICE int operator()(int a, int b, int c) const {
    return max_of(max_of(a, 0), max_of(b, c));
  }
};
}  // namespace s16x2_portable

// Per lane: max(a + b, c), the add wrapping.
SF_HOST_DEVICE std::uint32_t add_max_s16x2(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#ifdef SEQFUSE_HAVE_DPX
  return __viaddmax_s16x2(a, b, c);
#else
  return s16x2_portable::lanewise(a, b, c, s16x2_portable::AddMax{});
#endif
}

// Per lane: max(a + b, c, 0), the add wrapping.
SF_HOST_DEVICE std::uint32_t add_max_relu_s16x2(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#ifdef SEQFUSE_HAVE_DPX
  return __viaddmax_s16x2_relu(a, b, c);
#else
  return s16x2_portable::lanewise(a, b, c, s16x2_portable::AddMaxRelu{});
#endif
}

// Per lane: a + b, wrapping. On Hopper one DPX add-max against the lowest
// value, which every sum is at least: the same result as a plain add.
SF_HOST_DEVICE std::uint32_t add_s16x2(std::uint32_t a, std::uint32_t b) {
#ifdef SEQFUSE_HAVE_DPX
  return __viaddmax_s16x2(a, b, 0x80008000u);
#else
  return s16x2_portable::lanewise(a, b, 0, s16x2_portable::Add{});
#endif
}

// Per lane: max(a, b).
SF_HOST_DEVICE std::uint32_t max_s16x2(std::uint32_t a, std::uint32_t b) {
#ifdef SEQFUSE_HAVE_DPX
  return __vmaxs2(a, b);  // one VIMNMX.S16x2 on sm_90
#else
  return s16x2_portable::lanewise(a, b, b, s16x2_portable::Max3{});
#endif
}

// Per lane: max(a, b, c).
SF_HOST_DEVICE std::uint32_t max3_s16x2(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#ifdef SEQFUSE_HAVE_DPX
  return __vimax3_s16x2(a, b, c);
#else
  return s16x2_portable::lanewise(a, b, c, s16x2_portable::Max3{});
#endif
}

// Per lane: max(a, b, c, 0).
SF_HOST_DEVICE std::uint32_t max3_relu_s16x2(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#ifdef SEQFUSE_HAVE_DPX
  return __vimax3_s16x2_relu(a, b, c);
#else
  return s16x2_portable::lanewise(a, b, c, s16x2_portable::Max3Relu{});
#endif
}

// a - b on the whole 32-bit word, issued off the ALU pipe: on NVIDIA GPUs
// one IMAD (a * one + (0 - b)) on the FMA pipe, which issues beside the ALU
// pipe that every DPX and integer-add instruction shares (run 30's rates).
// It equals a per-lane subtraction only when no lane borrows (each 16-bit
// half of a at least that of b, as unsigned values): the caller's
// invariant. `one` must be 1 and unknown to the compiler (a kernel
// parameter), or it folds the multiply back into an ALU add.
SF_HOST_DEVICE std::uint32_t sub_no_borrow(std::uint32_t a, std::uint32_t b, std::uint32_t one) {
#if defined(SEQFUSE_VENDOR_CUDA) && defined(__CUDA_ARCH__)
  std::uint32_t d;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(one), "r"(0u - b));
  return d;
#else
  return a * one - b;
#endif
}

}  // namespace seqfuse::gpu
