// Issue rates of the instructions the DP kernels are made of, on the machine
// it runs on: warp-instructions per multiprocessor per clock for each op
// alone (4 = one per scheduler per clock, 2 = half rate) and for pairs of
// ops interleaved (whether two ops issue to different pipes side by side).
// Written for issue #18 (the 16-bit search kernel's floor): the DPX s16x2
// rates are not documented. Standalone: the CUDA build makes it as
// bin/seqfuse-dp-pipes; run it on the GPU machine, optionally with the SM
// clock in MHz (default: the device attribute's maximum clock).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace {

constexpr int kChains = 8;  // independent dependency chains per thread
constexpr int kIters = 4096;

enum Op {
  kAddMax16,
  kMax3Relu16,
  kMax16,
  kPerm,
  kIadd3,
  kLop3,
  kImad,
  kHadd2,
  kHmax2,
  kHfma2Relu,
  kAddMax32,
  kMixAddMaxHmax2,
  kMixAddMaxImad,
  kMixAddMaxPerm,
  kMixAddMaxHfma2,
  kOpCount
};
const char* kNames[kOpCount] = {"viaddmax_s16x2",
                                "vimax3_s16x2_relu",
                                "vimax_s16x2_relu",
                                "prmt",
                                "iadd3",
                                "lop3",
                                "imad",
                                "hadd2",
                                "hmax2",
                                "hfma2_relu",
                                "viaddmax_s32",
                                "viaddmax_s16x2+hmax2",
                                "viaddmax_s16x2+imad",
                                "viaddmax_s16x2+prmt",
                                "viaddmax_s16x2+hfma2_relu"};

// Mixes: chain 2k gets the DPX add-max, chain 2k + 1 the other op.
template <int kOp>
__device__ __forceinline__ void mix_step(std::uint32_t (&x)[kChains], std::uint32_t a,
                                         std::uint32_t b) {
  std::uint32_t prev[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) prev[c] = x[c];
#pragma unroll
  for (int c = 0; c < kChains; c += 2) {
    a = prev[(c + 2) % kChains];
    x[c] = __viaddmax_s16x2(x[c], a, b);
    std::uint32_t w = x[c + 1];
    a = prev[(c + 3) % kChains];
    if constexpr (kOp == kMixAddMaxHmax2) {
      __half2 h = *reinterpret_cast<__half2*>(&w);
      h = __hmax2(h, *reinterpret_cast<const __half2*>(&a));
      w = *reinterpret_cast<std::uint32_t*>(&h);
    }
    if constexpr (kOp == kMixAddMaxImad) w = w * a + b;
    if constexpr (kOp == kMixAddMaxPerm) w = __byte_perm(w, a, 0x5410 + c);
    if constexpr (kOp == kMixAddMaxHfma2) {
      __half2 h = *reinterpret_cast<__half2*>(&w);
      h = __hfma2_relu(h, *reinterpret_cast<const __half2*>(&a),
                       *reinterpret_cast<const __half2*>(&b));
      w = *reinterpret_cast<std::uint32_t*>(&h);
    }
    x[c + 1] = w;
  }
}

template <int kOp>
__device__ __forceinline__ void step(std::uint32_t (&x)[kChains], std::uint32_t a,
                                     std::uint32_t b) {
  // The second operand is another chain's previous value, so that no chain
  // of identical steps can be folded by the compiler; the 8 chains stay
  // independent within a step.
  std::uint32_t prev[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) prev[c] = x[c];
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    std::uint32_t v = x[c];
    a = prev[(c + 1) % kChains];
    if constexpr (kOp == kAddMax16) v = __viaddmax_s16x2(v, a, b);
    if constexpr (kOp == kMax3Relu16) v = __vimax3_s16x2_relu(v, a, b);
    if constexpr (kOp == kMax16) v = __vimax_s16x2_relu(v, a);
    if constexpr (kOp == kPerm) v = __byte_perm(v, a, 0x5410 + c);
    if constexpr (kOp == kIadd3) v = v + a + b;
    if constexpr (kOp == kLop3) v = (v & a) ^ b;
    if constexpr (kOp == kImad) v = v * a + b;
    if constexpr (kOp == kAddMax32)
      v = static_cast<std::uint32_t>(
          __viaddmax_s32(static_cast<int>(v), static_cast<int>(a), static_cast<int>(b)));
    if constexpr (kOp == kHadd2 || kOp == kHmax2 || kOp == kHfma2Relu) {
      __half2 h = *reinterpret_cast<__half2*>(&v);
      const __half2 ha = *reinterpret_cast<const __half2*>(&a);
      const __half2 hb = *reinterpret_cast<const __half2*>(&b);
      if constexpr (kOp == kHadd2) h = __hadd2(h, ha);
      if constexpr (kOp == kHmax2) h = __hmax2(h, ha);
      if constexpr (kOp == kHfma2Relu) h = __hfma2_relu(h, ha, hb);
      v = *reinterpret_cast<std::uint32_t*>(&h);
    }
    x[c] = v;
  }
}

template <int kOp>
__global__ void rate_kernel(std::uint32_t a, std::uint32_t b, std::uint32_t* sink) {
  std::uint32_t x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = threadIdx.x * 131 + c;
#pragma unroll 16
  for (int i = 0; i < kIters; ++i) {
    if constexpr (kOp >= kMixAddMaxHmax2)
      mix_step<kOp>(x, a, b);
    else
      step<kOp>(x, a, b);
  }
  std::uint32_t r = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) r ^= x[c];
  if (r == 0x12345678u) sink[threadIdx.x] = r;  // keeps the chains alive
}

template <int kOp>
float time_op(int blocks, int threads, std::uint32_t* sink) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  rate_kernel<kOp><<<blocks, threads>>>(0x00010001u, 0x00020002u, sink);  // warm-up
  cudaEventRecord(start);
  for (int rep = 0; rep < 5; ++rep)
    rate_kernel<kOp><<<blocks, threads>>>(0x00010001u, 0x00020002u, sink);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 5;
}

template <int kOp>
void report(const cudaDeviceProp& prop, double clock_hz, std::uint32_t* sink) {
  const int threads = 256;
  const int blocks = prop.multiProcessorCount * 8;  // 64 warps per SM
  const float ms = time_op<kOp>(blocks, threads, sink);
  const double warp_instr = double(blocks) * threads / 32 * kIters * kChains;
  const double per_sm_clock = warp_instr / (ms * 1e-3) / prop.multiProcessorCount / clock_hz;
  std::printf("%-28s %8.3f ms  %5.2f warp-instr/SM/clk\n", kNames[kOp], ms, per_sm_clock);
}

template <int... kOps>
void report_all(const cudaDeviceProp& prop, double clock_hz, std::uint32_t* sink,
                std::integer_sequence<int, kOps...>) {
  (report<kOps>(prop, clock_hz, sink), ...);
}

}  // namespace

int main(int argc, char** argv) {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  // The measured clock (nvidia-smi's SM clock under load) may be passed in
  // MHz; else the attribute's maximum.
  const double clock_hz = argc > 1 ? std::atof(argv[1]) * 1e6 : clock_khz * 1e3;
  std::uint32_t* sink = nullptr;
  cudaMalloc(&sink, 1024 * sizeof(std::uint32_t));
  std::printf("%s, %d SMs, clock %.0f MHz (%s)\n", prop.name, prop.multiProcessorCount,
              clock_hz / 1e6, argc > 1 ? "given" : "attribute maximum");
  report_all(prop, clock_hz, sink, std::make_integer_sequence<int, kOpCount>{});
  cudaFree(sink);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
