// Variable-length self-attention on tensor cores (NVIDIA sm_80+, 16-bit
// inputs), FlashAttention-2 style: a block of four warps takes one tile of 64
// query rows of one head, each warp 16 rows; key and value tiles of 64 pass
// through shared memory; S = Q K^T and O += P V are mma.sync m16n8k16
// products with fp32 accumulators, and the online softmax runs on S in
// registers. P is rounded to the input type to feed P V (as every 16-bit
// FlashAttention does); the row sums use the unrounded fp32 P.
//
// Head sizes 16 to 128 (ProtT5-XL's 128: two 64-key tiles of 136-element
// rows, 34 KiB of shared memory). T5's relative position bias is added to S
// in registers (a template flag: the ESM-2 and BERT kernels are unchanged).
//
// Why: with head sizes of 16 to 64, the CUDA-core kernel spends ~2 D
// fused multiply-adds per (query, key) pair on the two dot products, which a
// tensor core does at a fraction of the issue slots; what remains is the
// softmax's exponent per pair.
#include <cmath>

#include "gpu/vendor.cuh"
#include "gpu/nn/attention.hpp"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/mma.cuh"

namespace seqfuse::gpu::nn {
namespace {

constexpr int kWarps = 4;
constexpr int kRowsPerWarp = 16;
constexpr int kMmaLanes = 32;  // mma.sync is defined over 32 lanes (NVIDIA only)
constexpr int kThreads = kWarps * kMmaLanes;
constexpr int kKeyTile = 64;
constexpr float kLog2e = 1.4426950408889634f;
static_assert(kWarps * kRowsPerWarp == static_cast<int>(kAttentionQueryTile));

// Keys and values sit row-major in shared memory ([key][channel]), rows
// padded by 8 elements so that the 8 rows an ldmatrix tile reads fall on
// different banks, and 16-byte aligned for vector stores.
template <int D>
struct MmaTile {
  static_assert(D % 8 == 0, "rows move as 16-byte vectors");
  static constexpr int kDepth = (D + 15) / 16 * 16;  // Q K^T depth, zero-padded (24 -> 32)
  static constexpr int kStride = kDepth + 8;         // elements per shared row
  static constexpr int kRowVectors = D / 8;          // 16-byte vectors per key row
};

__device__ __forceinline__ std::uint32_t load_pair(const std::uint16_t* p) {
  return *reinterpret_cast<const std::uint32_t*>(p);
}

// kBias (T5): each score gets its relative position's bias (attention.hpp),
// added to S in registers; without it the kernel ESM-2 and BERT always ran.
template <int D, class T, bool kBias>
static __global__ void __launch_bounds__(kThreads)
    mma_attention_kernel(const T* query, const T* key, const T* value, const AttentionTile* tiles,
                         std::size_t tokens, int heads, const float* position_bias, int bias_tokens,
                         T* out) {
#ifdef SEQFUSE_HAVE_MMA
  using Tile = MmaTile<D>;
  constexpr int kDepth = Tile::kDepth;
  constexpr int kStride = Tile::kStride;
  constexpr int kKeyBlocks = kKeyTile / 8;  // n-tiles of S
  constexpr int kOutBlocks = D / 8;         // n-tiles of O
  __shared__ __align__(16) std::uint16_t key_tile[kKeyTile * kStride];
  __shared__ __align__(16) std::uint16_t value_tile[kKeyTile * kStride];

  const AttentionTile tile = tiles[blockIdx.x];
  const int head = static_cast<int>(blockIdx.y);
  const int warp = static_cast<int>(threadIdx.x) / kMmaLanes;
  const int lane = static_cast<int>(threadIdx.x) % kMmaLanes;
  const int group = lane / 4, pair = lane % 4;
  const int first_row = tile.first_query + warp * kRowsPerWarp;
  const bool warp_active = first_row < tile.length;
  const int row_a = first_row + group, row_b = row_a + 8;  // this lane's two rows
  const std::size_t sequence_base =
      (static_cast<std::size_t>(head) * tokens + static_cast<std::size_t>(tile.begin)) * D;
  const auto* q16 = reinterpret_cast<const std::uint16_t*>(query) + sequence_base;
  const auto* k16 = reinterpret_cast<const std::uint16_t*>(key) + sequence_base;
  const auto* v16 = reinterpret_cast<const std::uint16_t*>(value) + sequence_base;

  // Q as A fragments, once: rows past the sequence and channels past D are 0.
  std::uint32_t q_frag[kDepth / 16][4];
#pragma unroll
  for (int kk = 0; kk < kDepth / 16; ++kk) {
    const int c0 = kk * 16 + 2 * pair, c1 = c0 + 8;
    const bool a_in = row_a < tile.length, b_in = row_b < tile.length;
    q_frag[kk][0] = a_in && c0 < D ? load_pair(q16 + row_a * D + c0) : 0u;
    q_frag[kk][1] = b_in && c0 < D ? load_pair(q16 + row_b * D + c0) : 0u;
    q_frag[kk][2] = a_in && c1 < D ? load_pair(q16 + row_a * D + c1) : 0u;
    q_frag[kk][3] = b_in && c1 < D ? load_pair(q16 + row_b * D + c1) : 0u;
  }

  float o[kOutBlocks][4];
#pragma unroll
  for (int n = 0; n < kOutBlocks; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
  // Running maxima (log2 domain) and this lane's share of the row sums.
  float max_a = -INFINITY, max_b = -INFINITY, sum_a = 0.0f, sum_b = 0.0f;

  // Key channels D .. kDepth (D = 24) take part in Q K^T as zeros; no tile
  // load writes them.
  if constexpr (kDepth > D) {
    for (int i = static_cast<int>(threadIdx.x); i < kKeyTile * (kDepth - D); i += kThreads)
      key_tile[(i / (kDepth - D)) * kStride + D + i % (kDepth - D)] = 0;
  }
  // The head's biases by offset, centred: entry o is offset (key - query) o.
  [[maybe_unused]] const float* bias_center = nullptr;
  if constexpr (kBias)
    bias_center =
        position_bias + static_cast<std::size_t>(head) * (2 * bias_tokens - 1) + (bias_tokens - 1);
  // This lane's ldmatrix row: tile `lane / 8`, row `lane % 8`.
  const int tile_index = lane / 8, tile_row = lane % 8;

  for (int k0 = 0; k0 < tile.length; k0 += kKeyTile) {
    const int keys = min(kKeyTile, tile.length - k0);
    __syncthreads();  // every warp is done with the previous tile
    // 16-byte vectors; keys past the sequence are zeros (a NaN there would
    // survive P = 0 in P V).
    for (int i = static_cast<int>(threadIdx.x); i < kKeyTile * Tile::kRowVectors; i += kThreads) {
      const int j = i / Tile::kRowVectors, c = 8 * (i % Tile::kRowVectors);
      uint4 key_vector{0, 0, 0, 0}, value_vector{0, 0, 0, 0};
      if (j < keys) {
        const std::size_t at = static_cast<std::size_t>(k0 + j) * D + c;
        key_vector = *reinterpret_cast<const uint4*>(k16 + at);
        value_vector = *reinterpret_cast<const uint4*>(v16 + at);
      }
      *reinterpret_cast<uint4*>(&key_tile[j * kStride + c]) = key_vector;
      *reinterpret_cast<uint4*>(&value_tile[j * kStride + c]) = value_vector;
    }
    __syncthreads();
    if (!warp_active) continue;

    // S = Q K^T for 64 keys, two n-tiles of 8 keys per ldmatrix.x4: tiles
    // (keys +0..7, channels +0..7), (+0..7, +8..15), (+8..15, +0..7), (+8..15, +8..15).
    float s[kKeyBlocks][4];
#pragma unroll
    for (int n = 0; n < kKeyBlocks; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
    for (int n = 0; n < kKeyBlocks; n += 2)
#pragma unroll
      for (int kk = 0; kk < kDepth / 16; ++kk) {
        std::uint32_t b[4];
        load_tiles_x4(b, key_tile + (n * 8 + (tile_index / 2) * 8 + tile_row) * kStride + kk * 16 +
                             (tile_index % 2) * 8);
        const std::uint32_t b_lo[2] = {b[0], b[1]}, b_hi[2] = {b[2], b[3]};
        mma_16x8x16<T>(s[n], q_frag[kk], b_lo);
        mma_16x8x16<T>(s[n + 1], q_frag[kk], b_hi);
      }
    // T5: the relative position bias of the lane's scores whose key and row
    // are in the sequence (other offsets may be outside the table; keys past
    // the sequence drop out below, rows past it are never stored).
    if constexpr (kBias) {
      const bool a_in = row_a < tile.length, b_in = row_b < tile.length;
#pragma unroll
      for (int n = 0; n < kKeyBlocks; ++n)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int key_index = k0 + n * 8 + 2 * pair + c;
          if (key_index >= tile.length) continue;
          if (a_in) s[n][c] += bias_center[key_index - row_a];
          if (b_in) s[n][2 + c] += bias_center[key_index - row_b];
        }
    }
    // Keys past the sequence drop out (only the last tile has any).
    if (keys < kKeyTile) {
#pragma unroll
      for (int n = 0; n < kKeyBlocks; ++n)
#pragma unroll
        for (int c = 0; c < 2; ++c)
          if (n * 8 + 2 * pair + c >= keys) s[n][c] = s[n][2 + c] = -INFINITY;
    }
    float tile_max_a = -INFINITY, tile_max_b = -INFINITY;
#pragma unroll
    for (int n = 0; n < kKeyBlocks; ++n) {
      tile_max_a = fmaxf(tile_max_a, fmaxf(s[n][0], s[n][1]));
      tile_max_b = fmaxf(tile_max_b, fmaxf(s[n][2], s[n][3]));
    }
    // The four lanes of a group share its two rows.
    tile_max_a = fmaxf(tile_max_a, warp_shuffle_xor(tile_max_a, 1));
    tile_max_a = fmaxf(tile_max_a, warp_shuffle_xor(tile_max_a, 2));
    tile_max_b = fmaxf(tile_max_b, warp_shuffle_xor(tile_max_b, 1));
    tile_max_b = fmaxf(tile_max_b, warp_shuffle_xor(tile_max_b, 2));
    // Finite: key k0 < keys is in every tile. e^(s - max) = 2^(s log2e - max
    // log2e): one fused multiply-add per score before the exponent.
    const float new_a = fmaxf(max_a, tile_max_a), new_b = fmaxf(max_b, tile_max_b);
    const float correction_a = fast_exp2((max_a - new_a) * kLog2e);  // 0 on the first tile
    const float correction_b = fast_exp2((max_b - new_b) * kLog2e);
    const float offset_a = -new_a * kLog2e, offset_b = -new_b * kLog2e;
    max_a = new_a;
    max_b = new_b;
    sum_a *= correction_a;
    sum_b *= correction_b;
#pragma unroll
    for (int n = 0; n < kOutBlocks; ++n) {
      o[n][0] *= correction_a;
      o[n][1] *= correction_a;
      o[n][2] *= correction_b;
      o[n][3] *= correction_b;
    }

    // O += P V, 16 keys per k-step; P's accumulators are A's layout.
#pragma unroll
    for (int step = 0; step < kKeyTile / 16; ++step) {
      float p[2][4];
#pragma unroll
      for (int half = 0; half < 2; ++half)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          p[half][c] = fast_exp2(fmaf(s[2 * step + half][c], kLog2e, offset_a));
          p[half][2 + c] = fast_exp2(fmaf(s[2 * step + half][2 + c], kLog2e, offset_b));
          sum_a += p[half][c];
          sum_b += p[half][2 + c];
        }
      const std::uint32_t a[4] = {pack_pair<T>(p[0][0], p[0][1]), pack_pair<T>(p[0][2], p[0][3]),
                                  pack_pair<T>(p[1][0], p[1][1]), pack_pair<T>(p[1][2], p[1][3])};
      // B from row-major values by ldmatrix.trans: tiles (keys +0..7,
      // channels +0..7), (+8..15, +0..7), (+0..7, +8..15), (+8..15, +8..15).
      const std::uint16_t* value_rows =
          value_tile + (step * 16 + (tile_index % 2) * 8 + tile_row) * kStride;
#pragma unroll
      for (int n = 0; n + 1 < kOutBlocks; n += 2) {
        std::uint32_t b[4];
        load_tiles_x4_trans(b, value_rows + n * 8 + (tile_index / 2) * 8);
        const std::uint32_t b_lo[2] = {b[0], b[1]}, b_hi[2] = {b[2], b[3]};
        mma_16x8x16<T>(o[n], a, b_lo);
        mma_16x8x16<T>(o[n + 1], a, b_hi);
      }
      if constexpr (kOutBlocks % 2 != 0) {  // D = 24: the last 8 channels alone
        std::uint32_t b[2];
        load_tiles_x2_trans(b, value_rows + (kOutBlocks - 1) * 8);
        mma_16x8x16<T>(o[kOutBlocks - 1], a, b);
      }
    }
  }
  if (!warp_active) return;
  sum_a += warp_shuffle_xor(sum_a, 1);
  sum_a += warp_shuffle_xor(sum_a, 2);
  sum_b += warp_shuffle_xor(sum_b, 1);
  sum_b += warp_shuffle_xor(sum_b, 2);
  // Sums >= 1: each row's maximum contributes 2^0.
  const float inverse_a = 1.0f / sum_a, inverse_b = 1.0f / sum_b;
  const std::size_t row_stride = static_cast<std::size_t>(heads) * D;
  T* dst = out + static_cast<std::size_t>(tile.begin) * row_stride +
           static_cast<std::size_t>(head) * D + 2 * pair;
#pragma unroll
  for (int n = 0; n < kOutBlocks; ++n) {
    if (row_a < tile.length)
      *reinterpret_cast<std::uint32_t*>(dst + row_a * row_stride + n * 8) =
          pack_pair<T>(o[n][0] * inverse_a, o[n][1] * inverse_a);
    if (row_b < tile.length)
      *reinterpret_cast<std::uint32_t*>(dst + row_b * row_stride + n * 8) =
          pack_pair<T>(o[n][2] * inverse_b, o[n][3] * inverse_b);
  }
#else
  // Never launched: attention_kernel_for() picks this kernel only on sm_80+.
  (void)query, (void)key, (void)value, (void)tiles, (void)tokens, (void)heads, (void)out;
  (void)position_bias, (void)bias_tokens;
#endif
}

template <int D, class T>
void launch(const VarlenAttention& job, gpuStream_t stream) {
  const dim3 grid(static_cast<unsigned>(job.tile_count), static_cast<unsigned>(job.heads));
  const auto* query = static_cast<const T*>(job.query);
  const auto* key = static_cast<const T*>(job.key);
  const auto* value = static_cast<const T*>(job.value);
  const int heads = static_cast<int>(job.heads), bias_tokens = static_cast<int>(job.bias_tokens);
  auto* out = static_cast<T*>(job.out);
  if (job.position_bias)
    mma_attention_kernel<D, T, true><<<grid, kThreads, 0, stream>>>(
        query, key, value, job.tiles, job.tokens, heads, job.position_bias, bias_tokens, out);
  else
    mma_attention_kernel<D, T, false><<<grid, kThreads, 0, stream>>>(
        query, key, value, job.tiles, job.tokens, heads, nullptr, 0, out);
  GPU_CHECK_LAUNCH();
}

template <class T>
void launch_for_head_dim(const VarlenAttention& job, gpuStream_t stream) {
  switch (job.head_dim) {
    case 16:
      launch<16, T>(job, stream);
      break;
    case 24:
      launch<24, T>(job, stream);
      break;
    case 32:
      launch<32, T>(job, stream);
      break;
    case 64:
      launch<64, T>(job, stream);
      break;
    default:
      launch<128, T>(job, stream);
      break;
  }
}

}  // namespace

void launch_mma_attention(const VarlenAttention& job, Stream& stream) {
  const gpuStream_t s = native_stream(stream);
  if (job.in_type == NnType::bf16)
    launch_for_head_dim<bf16_t>(job, s);
  else
    launch_for_head_dim<f16_t>(job, s);
}

}  // namespace seqfuse::gpu::nn
