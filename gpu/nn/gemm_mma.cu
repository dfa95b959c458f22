// A tensor-core GEMM of ours for 16-bit operands (NVIDIA sm_80+): y = x w^T
// (+ bias), with gemm.hpp's epilogues (bias of either type, GELU's tanh
// form, ReLU, accumulation into an fp32 y), fp32 accumulation throughout.
//
// Why it exists: cuBLASLt's first use in a process costs about 0.2 s (its
// library load, its heuristic's first queries, its kernels' lazy loading;
// runs 38d and 39), longer than a small model's whole forward pass. A run
// whose GEMMs are this kernel never loads the vendor library. It is not the
// default (gpu_compute.hpp's gemm_backend_for): at 140-290 TFLOP/s against
// cuBLASLt's 420-850 on the engine's shapes (seqfuse_tests "linear GEMM:
// timing*", run 39) it makes the forward pass slower by more than the 0.2 s
// it saves once a run holds more than about 8,000 proteins for the 8M model.
// SEQFUSE_EMBED_GEMM=mma runs it, to measure.
//
// Shape: 128 x 128 output tiles, 8 warps of 64 x 32 (4 m16 x 4 n8 product
// tiles each), 32-deep k slices through a ring of four shared-memory stages
// filled by cp.async, so three slices are on their way while one slice's
// products run. Tried in run 39 and slower: one tile per persistent block
// streaming the next tile's slices under this one's epilogue (136 against
// 154 TFLOP/s at k = 320), and 4 warps of 64 x 64 (113). Both operands are
// k-contiguous (torch.nn.Linear's x [rows][in], w [out][in]), the layout
// mma.sync's row.col products take straight from ldmatrix.
#include <atomic>
#include <cstdint>

// First: HIP builds get __host__ and __device__ from it (nvcc knows them).
#include "gpu/vendor.cuh"

#include "gpu/nn/gemm.hpp"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/mma.cuh"
#include "gpu/nn/nn_math.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr int kBlockRows = 128, kBlockCols = 128;  // one block's output tile
constexpr int kSlice = 32;                         // k per shared-memory stage
// Shared rows padded by 8 elements (80 bytes): the 8 rows an ldmatrix tile
// reads fall on different banks, and every row starts 16-byte aligned.
constexpr int kStride = kSlice + 8;
constexpr int kWarpsAlongCols = 4;             // 2 x 4 warps
constexpr int kWarpRows = 64, kWarpCols = 32;  // one warp's share of the tile
constexpr int kMTiles = kWarpRows / 16, kNTiles = kWarpCols / 8;
constexpr int kThreads = 256;
constexpr int kStages = 4;
constexpr int kVectorsPerRow = kSlice / 8;  // 16-byte vectors per slice row
// x's and w's rows of one stage; the ring (80 KiB) is dynamic shared memory,
// past the 48 KiB a kernel gets without asking.
constexpr int kStageElements = (kBlockRows + kBlockCols) * kStride;
constexpr std::size_t kSharedBytes = std::size_t{kStages} * kStageElements * 2;
constexpr int kVectorsPerThread = kBlockRows * kVectorsPerRow / kThreads;
static_assert(kBlockRows == kBlockCols &&
                  kVectorsPerThread * kThreads == kBlockRows * kVectorsPerRow,
              "each thread copies as many vectors of x as of w per slice");

// A block per output tile. Consecutive blocks share x's rows (read from
// memory once, then from L2); w is small next to x and stays in L2.
template <class T, class Y, class B>
static __global__ void __launch_bounds__(kThreads)
    linear_mma_kernel(const T* x, const T* w, std::size_t rows, std::size_t in, std::size_t out,
                      unsigned col_blocks, const B* bias, bool accumulate, Activation activation,
                      Y* y) {
#ifdef SEQFUSE_HAVE_MMA
  extern __shared__ __align__(16) std::uint16_t ring[];  // per stage: x's rows, then w's
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int warp_row = (warp / kWarpsAlongCols) * kWarpRows;
  const int warp_col = (warp % kWarpsAlongCols) * kWarpCols;
  const unsigned slices = static_cast<unsigned>((in + kSlice - 1) / kSlice);
  const std::size_t row0 = static_cast<std::size_t>(blockIdx.x / col_blocks) * kBlockRows;
  const std::size_t col0 = static_cast<std::size_t>(blockIdx.x % col_blocks) * kBlockCols;

  // Queues slice `slice` (x's rows and w's rows of one k range) as one
  // cp.async group; vectors past the matrices are zeros (in is a multiple of
  // 8: a vector is wholly inside or past the k range). Past the last slice
  // the group is empty, so every iteration waits alike.
  const auto load_slice = [&](unsigned slice) {
    if (slice < slices) {
      std::uint16_t* stage = ring + (slice % kStages) * kStageElements;
      const std::size_t k0 = static_cast<std::size_t>(slice) * kSlice;
#pragma unroll
      for (int i = 0; i < kVectorsPerThread; ++i) {
        const int vector = tid + i * kThreads;
        const int r = vector / kVectorsPerRow, c = (vector % kVectorsPerRow) * 8;
        const std::size_t k = k0 + static_cast<std::size_t>(c);
        const std::size_t xr = row0 + static_cast<std::size_t>(r);
        const std::size_t wr = col0 + static_cast<std::size_t>(r);
        const bool x_in = xr < rows && k < in, w_in = wr < out && k < in;
        copy_async16(stage + r * kStride + c, x_in ? x + xr * in + k : x, x_in);
        copy_async16(stage + (kBlockRows + r) * kStride + c, w_in ? w + wr * in + k : w, w_in);
      }
    }
    commit_async_group();
  };

  for (unsigned i = 0; i + 1 < kStages; ++i) load_slice(i);
  float acc[kMTiles][kNTiles][4] = {};
  for (unsigned g = 0; g < slices; ++g) {
    wait_async_groups<kStages - 2>();  // slice g has arrived; the next ones are on their way
    // Every warp is past slice g - 1, whose stage the load below refills.
    __syncthreads();
    load_slice(g + kStages - 1);
    const std::uint16_t* xs = ring + (g % kStages) * kStageElements;
    const std::uint16_t* ws = xs + kBlockRows * kStride;
#pragma unroll
    for (int kk = 0; kk < kSlice; kk += 16) {
      // A: tiles (rows 0-7 | 8-15) x (k 0-7 | 8-15), lane l addressing row
      // l % 8 of tile l / 8, in a[0..3]'s order (mma.cuh).
      std::uint32_t a[kMTiles][4];
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        const int row = warp_row + m * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        load_tiles_x4(a[m], xs + row * kStride + kk + (lane >> 4) * 8);
      }
      // B = w^T: w's rows are B's columns. One x4 load gives two n8 tiles'
      // b[0], b[1] (n 0-7 at k 0-7 and 8-15, then n 8-15).
      std::uint32_t b[kNTiles][2];
#pragma unroll
      for (int n = 0; n < kNTiles; n += 2) {
        const int col = warp_col + n * 8 + (lane & 7) + (lane >> 4) * 8;
        std::uint32_t r[4];
        load_tiles_x4(r, ws + col * kStride + kk + ((lane >> 3) & 1) * 8);
        b[n][0] = r[0];
        b[n][1] = r[1];
        b[n + 1][0] = r[2];
        b[n + 1][1] = r[3];
      }
#pragma unroll
      for (int m = 0; m < kMTiles; ++m)
#pragma unroll
        for (int n = 0; n < kNTiles; ++n) mma_16x8x16<T>(acc[m][n], a[m], b[n]);
    }
  }

  // Epilogue, in the tiled kernel's order: + bias, activation, + y. Each
  // lane holds column pairs (2 pair, +1) of rows group and group + 8; out is
  // a multiple of 8, so a pair is wholly inside or past it.
  const int group = lane >> 2, pair = lane & 3;
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const std::size_t r = row0 + static_cast<std::size_t>(warp_row + m * 16 + group + half * 8);
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
        const std::size_t c = col0 + static_cast<std::size_t>(warp_col + n * 8 + pair * 2);
        float v[2] = {acc[m][n][half * 2], acc[m][n][half * 2 + 1]};
        if (r >= rows || c >= out) continue;
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          if (bias) v[j] += to_float(bias[c + static_cast<std::size_t>(j)]);
          if (activation == Activation::gelu_tanh)
            v[j] = gelu_tanh(v[j]);
          else if (activation == Activation::relu)
            v[j] = fmaxf(v[j], 0.0f);
        }
        Y* to = y + r * out + c;
        if constexpr (sizeof(Y) == 4) {
          if (accumulate) {
            const float2 before = *reinterpret_cast<const float2*>(to);
            v[0] += before.x;
            v[1] += before.y;
          }
          *reinterpret_cast<float2*>(to) = make_float2(v[0], v[1]);
        } else {
          *reinterpret_cast<std::uint32_t*>(to) = pack_pair<Y>(v[0], v[1]);
        }
      }
    }
#else
  // Never launched: linear_mma_takes() is false off sm_80+ and on HIP.
  (void)x, (void)w, (void)rows, (void)in, (void)out, (void)col_blocks, (void)bias;
  (void)accumulate, (void)activation, (void)y;
#endif
}

template <class T, class Y, class B>
void launch(const Linear& job, gpuStream_t stream) {
  // Each kernel may take more than 48 KiB of dynamic shared memory once it
  // says so, on each device a process uses.
  static std::atomic<std::uint64_t> allowed{0};  // a bit per device index
  int device = 0;
  GPU_CHECK(gpuGetDevice(&device));
  const std::uint64_t bit = std::uint64_t{1} << (device % 64);
  if ((allowed.load() & bit) == 0) {
    GPU_CHECK(gpuFuncSetAttribute(reinterpret_cast<const void*>(&linear_mma_kernel<T, Y, B>),
                                  gpuFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(kSharedBytes)));
    allowed.fetch_or(bit);
  }
  const unsigned col_blocks = blocks_for(job.out, kBlockCols);
  const auto tiles = static_cast<unsigned>(blocks_for(job.rows, kBlockRows) * col_blocks);
  linear_mma_kernel<T, Y, B><<<tiles, kThreads, kSharedBytes, stream>>>(
      static_cast<const T*>(job.x), static_cast<const T*>(job.w), job.rows, job.in, job.out,
      col_blocks, static_cast<const B*>(job.bias), job.accumulate, job.activation,
      static_cast<Y*>(job.y));
  GPU_CHECK_LAUNCH();
}

// y fp32 or the operands' type; the bias fp32 or the operands' type.
template <class T>
void launch_for_output(const Linear& job, gpuStream_t stream) {
  const bool y32 = job.y_type == NnType::f32, bias32 = job.bias_type == NnType::f32;
  if (y32 && bias32)
    launch<T, float, float>(job, stream);
  else if (y32)
    launch<T, float, T>(job, stream);
  else if (bias32)
    launch<T, T, float>(job, stream);
  else
    launch<T, T, T>(job, stream);
}

[[maybe_unused]] bool aligned_to(const void* p, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

}  // namespace

bool linear_mma_takes(const Linear& job) {
#if SEQFUSE_VENDOR_CUDA
  // Rows move as 16-byte vectors (in) and outputs as pairs of columns in
  // groups of eight (out); tiles are counted in 32 bits.
  const std::size_t most_tiles = std::size_t{1} << 31;
  return job.type != NnType::f32 && can_implement(job) && job.in % 8 == 0 && job.out % 8 == 0 &&
         aligned_to(job.x, 16) && aligned_to(job.w, 16) && aligned_to(job.y, 8) &&
         (!job.bias || aligned_to(job.bias, 4)) &&
         (job.rows / kBlockRows + 1) * (job.out / kBlockCols + 1) < most_tiles &&
         current_compute_major() >= 8;
#else
  (void)job;
  return false;
#endif
}

Status linear_mma(const Linear& job, Stream& stream) {
  if (job.rows == 0 || job.out == 0) return Status::kSuccess;
  if (!job.x || !job.w || !job.y) return Status::kNullBuffer;
  if (!linear_mma_takes(job)) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  if (job.type == NnType::bf16)
    launch_for_output<bf16_t>(job, s);
  else
    launch_for_output<f16_t>(job, s);
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
