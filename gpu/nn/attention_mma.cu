// Variable-length self-attention on tensor cores (NVIDIA sm_80+, 16-bit
// inputs), FlashAttention-2 style: a block takes one 128-row query tile of
// one head, or half of one (attention.hpp's MmaLayout: 8 warps of 16 rows,
// 4 of 32, or 4 of 16 on half a tile; with 32 rows, kMTiles = 2 m16 row
// tiles, and each key or value fragment read from shared memory feeds two
// products). Key and value tiles of 64 pass through shared memory; S = Q K^T
// and O += P V are mma.sync m16n8k16 products with fp32 accumulators, and
// the online softmax runs on S in registers. P is rounded to the input
// type to feed P V (as every 16-bit FlashAttention does); the row sums use
// the unrounded fp32 P.
//
// Loads overlap the products (cp.async). Head sizes up to 64: two buffers
// each for keys and values, the next tile's fetched while this one's S,
// softmax and P V run, one block barrier per key tile. Head size 128 (two
// buffers would pass 48 KiB of static shared memory): one buffer each, as
// FlashAttention-2 has, the next key tile fetched during the softmax and
// P V, the next value tile during the next S, four barriers per key tile.
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

// First: HIP builds get __host__ and __device__ from it (nvcc knows them).
#include "gpu/vendor.cuh"

#include "gpu/nn/attention.hpp"
#include "gpu/nn/attention_operands.cuh"
#include "gpu/nn/launch.cuh"
#include "gpu/nn/mma.cuh"

namespace seqfuse::gpu::nn {
namespace {

constexpr int kRowsPerTile = static_cast<int>(kAttentionQueryTile);
constexpr int kMmaLanes = 32;  // mma.sync is defined over 32 lanes (NVIDIA only)
constexpr int kKeyTile = 64;
constexpr float kLog2e = 1.4426950408889634f;

// Keys and values sit row-major in shared memory ([key][channel]), rows
// padded by 8 elements so that the 8 rows an ldmatrix tile reads fall on
// different banks, and 16-byte aligned for cp.async.
template <int D>
struct MmaTile {
  static_assert(D % 8 == 0, "rows move as 16-byte vectors");
  static constexpr int kDepth = (D + 15) / 16 * 16;  // Q K^T depth, zero-padded (24 -> 32)
  static constexpr int kStride = kDepth + 8;         // elements per shared row
  static constexpr int kRowVectors = D / 8;          // 16-byte vectors per key row
};

// Two buffers each for keys and values (the next tile loads while this one
// is computed; the block synchronizes once a tile, not four times: 10 %
// faster at head size 64, run 40) where they fit the 48 KiB of static
// shared memory: head sizes up to 64. At 128 one buffer each.
template <int D>
constexpr bool kTwoBuffersFit = MmaTile<D>::kStride * kKeyTile * 2 * 2 * 2 <= 48 * 1024;

__device__ __forceinline__ std::uint32_t load_pair(const std::uint16_t* p) {
  return *reinterpret_cast<const std::uint32_t*>(p);
}

// Queues the copy of keys (or values) k0 .. k0 + 63 of a sequence into a
// shared tile as one cp.async group; rows past the sequence (`keys` on) are
// zeros (a NaN there would survive P = 0 in P V). `rows` points at the
// sequence's first row of this head, `stride` elements apart.
#ifdef SEQFUSE_HAVE_MMA
template <int D, int kThreads>
__device__ __forceinline__ void queue_tile(std::uint16_t* shared, const std::uint16_t* rows,
                                           std::size_t stride, int k0, int keys) {
  using Tile = MmaTile<D>;
  for (int i = static_cast<int>(threadIdx.x); i < kKeyTile * Tile::kRowVectors; i += kThreads) {
    const int j = i / Tile::kRowVectors, c = 8 * (i % Tile::kRowVectors);
    const bool valid = j < keys;
    // An invalid row reads nothing; its address stays inside the sequence.
    copy_async16(shared + j * Tile::kStride + c,
                 rows + static_cast<std::size_t>(k0 + (valid ? j : 0)) * stride + c, valid);
  }
  commit_async_group();
}
#endif

// kBias (T5): each score gets its relative position's bias (attention.hpp),
// added to S in registers; without it the kernel ESM-2 and BERT always ran.
template <int D, class T, bool kBias, int kWarps, int kMTiles, int kStages>
static __global__ void __launch_bounds__(kWarps* kMmaLanes)
    mma_attention_kernel(const T* query, const T* key, const T* value, AttentionStrides in,
                         const float* value_bias, const AttentionTile* tiles, int heads,
                         const float* position_bias, int bias_tokens, T* out) {
#ifdef SEQFUSE_HAVE_MMA
  using Tile = MmaTile<D>;
  constexpr int kThreads = kWarps * kMmaLanes;
  constexpr int kBlockRows = kWarps * 16 * kMTiles;
  constexpr int kSplit = kRowsPerTile / kBlockRows;  // blocks per tile: 1 or 2
  static_assert(kSplit * kBlockRows == kRowsPerTile, "blocks take a tile or half of one");
  constexpr int kDepth = Tile::kDepth;
  constexpr int kStride = Tile::kStride;
  constexpr int kKeyBlocks = kKeyTile / 8;  // n-tiles of S
  constexpr int kOutBlocks = D / 8;         // n-tiles of O
  constexpr int kTileElements = kKeyTile * kStride;
  __shared__ __align__(16) std::uint16_t key_tile[kStages * kTileElements];
  __shared__ __align__(16) std::uint16_t value_tile[kStages * kTileElements];

  const AttentionTile tile = tiles[blockIdx.x / kSplit];
  const int block_row = tile.first_query + static_cast<int>(blockIdx.x % kSplit) * kBlockRows;
  if (block_row >= tile.length) return;  // the whole block: a tile's empty second half
  const int head = static_cast<int>(blockIdx.y);
  const int warp = static_cast<int>(threadIdx.x) / kMmaLanes;
  const int lane = static_cast<int>(threadIdx.x) % kMmaLanes;
  const int group = lane / 4, pair = lane % 4;
  const int first_row = block_row + warp * 16 * kMTiles;
  const bool warp_active = first_row < tile.length;
  // This lane's two rows of each row tile.
  int row_a[kMTiles], row_b[kMTiles];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
    row_a[m] = first_row + 16 * m + group;
    row_b[m] = row_a[m] + 8;
  }
  // The sequence's first row of this head in each operand (16-byte aligned
  // rows: attention_kernel_for checks).
  const auto* q16 =
      in.query.first_row(reinterpret_cast<const std::uint16_t*>(query), head, tile.begin);
  const auto* k16 = in.key.first_row(reinterpret_cast<const std::uint16_t*>(key), head, tile.begin);
  const auto* v16 =
      in.value.first_row(reinterpret_cast<const std::uint16_t*>(value), head, tile.begin);
  const std::size_t q_stride = in.query.token, k_stride = in.key.token, v_stride = in.value.token;

  // Key channels D .. kDepth (D = 24) take part in Q K^T as zeros; no tile
  // load writes them. (Made visible by the loop's first barrier.)
  if constexpr (kDepth > D) {
    for (int i = static_cast<int>(threadIdx.x); i < kStages * kKeyTile * (kDepth - D);
         i += kThreads)
      key_tile[(i / (kDepth - D)) * kStride + D + i % (kDepth - D)] = 0;
  }
  // The first tile's keys and values are on their way while Q is read.
  queue_tile<D, kThreads>(key_tile, k16, k_stride, 0, min(kKeyTile, tile.length));
  queue_tile<D, kThreads>(value_tile, v16, v_stride, 0, min(kKeyTile, tile.length));

  // Q as A fragments, once: rows past the sequence and channels past D are 0.
  std::uint32_t q_frag[kMTiles][kDepth / 16][4];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int kk = 0; kk < kDepth / 16; ++kk) {
      const int c0 = kk * 16 + 2 * pair, c1 = c0 + 8;
      const bool a_in = row_a[m] < tile.length, b_in = row_b[m] < tile.length;
      const std::uint16_t* qa = q16 + row_a[m] * q_stride;
      const std::uint16_t* qb = q16 + row_b[m] * q_stride;
      q_frag[m][kk][0] = a_in && c0 < D ? load_pair(qa + c0) : 0u;
      q_frag[m][kk][1] = b_in && c0 < D ? load_pair(qb + c0) : 0u;
      q_frag[m][kk][2] = a_in && c1 < D ? load_pair(qa + c1) : 0u;
      q_frag[m][kk][3] = b_in && c1 < D ? load_pair(qb + c1) : 0u;
    }

  float o[kMTiles][kOutBlocks][4];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int n = 0; n < kOutBlocks; ++n) o[m][n][0] = o[m][n][1] = o[m][n][2] = o[m][n][3] = 0.0f;
  // Running maxima (log2 domain) and this lane's share of the row sums.
  float max_a[kMTiles], max_b[kMTiles], sum_a[kMTiles], sum_b[kMTiles];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
    max_a[m] = max_b[m] = -INFINITY;
    sum_a[m] = sum_b[m] = 0.0f;
  }

  // The head's biases by offset, centred: entry o is offset (key - query) o.
  [[maybe_unused]] const float* bias_center = nullptr;
  if constexpr (kBias)
    bias_center =
        position_bias + static_cast<std::size_t>(head) * (2 * bias_tokens - 1) + (bias_tokens - 1);
  // This lane's ldmatrix row: tile `lane / 8`, row `lane % 8`.
  const int tile_index = lane / 8, tile_row = lane % 8;
  using Scores = float[kMTiles][kKeyBlocks][4];

  // S's n-tiles 2 step and 2 step + 1 (16 keys): Q K^T over the depth, two
  // n-tiles per ldmatrix.x4: tiles (keys +0..7, channels +0..7), (+0..7,
  // +8..15), (+8..15, +0..7), (+8..15, +8..15). s starts at zero.
  const auto score_step = [&](Scores& s, const std::uint16_t* keys_in, int step) {
    const int n = 2 * step;
#pragma unroll
    for (int kk = 0; kk < kDepth / 16; ++kk) {
      std::uint32_t b[4];
      load_tiles_x4(b, keys_in + (n * 8 + (tile_index / 2) * 8 + tile_row) * kStride + kk * 16 +
                           (tile_index % 2) * 8);
      const std::uint32_t b_lo[2] = {b[0], b[1]}, b_hi[2] = {b[2], b[3]};
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_16x8x16<T>(s[m][n], q_frag[m][kk], b_lo);
        mma_16x8x16<T>(s[m][n + 1], q_frag[m][kk], b_hi);
      }
    }
  };
  const auto clear = [](Scores& s) {
#pragma unroll
    for (int m = 0; m < kMTiles; ++m)
#pragma unroll
      for (int n = 0; n < kKeyBlocks; ++n) s[m][n][0] = s[m][n][1] = s[m][n][2] = s[m][n][3] = 0.0f;
  };

  // The online softmax's update for keys k0 .. k0 + keys - 1: T5's bias, keys
  // past the sequence out, new row maxima, O and the sums rescaled.
  const auto rescale = [&](Scores& s, int k0, int keys) {
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
      // T5: the relative position bias of the lane's scores whose key and
      // row are in the sequence (other offsets may be outside the table;
      // keys past the sequence drop out below, rows past it are never
      // stored).
      if constexpr (kBias) {
        const bool a_in = row_a[m] < tile.length, b_in = row_b[m] < tile.length;
#pragma unroll
        for (int n = 0; n < kKeyBlocks; ++n)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const int key_index = k0 + n * 8 + 2 * pair + c;
            if (key_index >= tile.length) continue;
            if (a_in) s[m][n][c] += bias_center[key_index - row_a[m]];
            if (b_in) s[m][n][2 + c] += bias_center[key_index - row_b[m]];
          }
      }
      // Keys past the sequence drop out (only the last tile has any).
      if (keys < kKeyTile) {
#pragma unroll
        for (int n = 0; n < kKeyBlocks; ++n)
#pragma unroll
          for (int c = 0; c < 2; ++c)
            if (n * 8 + 2 * pair + c >= keys) s[m][n][c] = s[m][n][2 + c] = -INFINITY;
      }
      float tile_max_a = -INFINITY, tile_max_b = -INFINITY;
#pragma unroll
      for (int n = 0; n < kKeyBlocks; ++n) {
        tile_max_a = fmaxf(tile_max_a, fmaxf(s[m][n][0], s[m][n][1]));
        tile_max_b = fmaxf(tile_max_b, fmaxf(s[m][n][2], s[m][n][3]));
      }
      // The four lanes of a group share its two rows.
      tile_max_a = fmaxf(tile_max_a, warp_shuffle_xor(tile_max_a, 1));
      tile_max_a = fmaxf(tile_max_a, warp_shuffle_xor(tile_max_a, 2));
      tile_max_b = fmaxf(tile_max_b, warp_shuffle_xor(tile_max_b, 1));
      tile_max_b = fmaxf(tile_max_b, warp_shuffle_xor(tile_max_b, 2));
      // Finite: key k0 < keys is in every tile. The new maxima are kept
      // premultiplied by log2(e) so that e^(s - max) = 2^(s log2e - max
      // log2e) is one fused multiply-add per score before the exponent.
      const float new_a = fmaxf(max_a[m], tile_max_a * kLog2e);
      const float new_b = fmaxf(max_b[m], tile_max_b * kLog2e);
      const float correction_a = fast_exp2(max_a[m] - new_a);  // 0 on the first tile
      const float correction_b = fast_exp2(max_b[m] - new_b);
      max_a[m] = new_a;
      max_b[m] = new_b;
      sum_a[m] *= correction_a;
      sum_b[m] *= correction_b;
#pragma unroll
      for (int n = 0; n < kOutBlocks; ++n) {
        o[m][n][0] *= correction_a;
        o[m][n][1] *= correction_a;
        o[m][n][2] *= correction_b;
        o[m][n][3] *= correction_b;
      }
    }
  };

  // O += P V for keys 16 step .. 16 step + 15; P's accumulators are A's
  // layout. B from row-major values by ldmatrix.trans: tiles (keys +0..7,
  // channels +0..7), (+8..15, +0..7), (+0..7, +8..15), (+8..15, +8..15).
  const auto accumulate_step = [&](const Scores& s, const std::uint16_t* values_in, int step) {
    std::uint32_t a[kMTiles][4];
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
      float p[2][4];
#pragma unroll
      for (int half = 0; half < 2; ++half)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          p[half][c] = fast_exp2(fmaf(s[m][2 * step + half][c], kLog2e, -max_a[m]));
          p[half][2 + c] = fast_exp2(fmaf(s[m][2 * step + half][2 + c], kLog2e, -max_b[m]));
          sum_a[m] += p[half][c];
          sum_b[m] += p[half][2 + c];
        }
      a[m][0] = pack_pair<T>(p[0][0], p[0][1]);
      a[m][1] = pack_pair<T>(p[0][2], p[0][3]);
      a[m][2] = pack_pair<T>(p[1][0], p[1][1]);
      a[m][3] = pack_pair<T>(p[1][2], p[1][3]);
    }
    const std::uint16_t* value_rows =
        values_in + (step * 16 + (tile_index % 2) * 8 + tile_row) * kStride;
#pragma unroll
    for (int n = 0; n + 1 < kOutBlocks; n += 2) {
      std::uint32_t b[4];
      load_tiles_x4_trans(b, value_rows + n * 8 + (tile_index / 2) * 8);
      const std::uint32_t b_lo[2] = {b[0], b[1]}, b_hi[2] = {b[2], b[3]};
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_16x8x16<T>(o[m][n], a[m], b_lo);
        mma_16x8x16<T>(o[m][n + 1], a[m], b_hi);
      }
    }
    if constexpr (kOutBlocks % 2 != 0) {  // D = 24: the last 8 channels alone
      std::uint32_t b[2];
      load_tiles_x2_trans(b, value_rows + (kOutBlocks - 1) * 8);
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) mma_16x8x16<T>(o[m][kOutBlocks - 1], a[m], b);
    }
  };
  constexpr int kSteps = kKeyTile / 16;

  // One buffer: once every warp is done with it, the next tile's keys (or
  // values) go in; with none left, an empty group keeps the count of groups
  // in flight.
  const auto refill = [&](std::uint16_t* buffer, const std::uint16_t* rows, std::size_t stride,
                          int k0, int next_keys) {
    __syncthreads();
    if (next_keys > 0)
      queue_tile<D, kThreads>(buffer, rows, stride, k0 + kKeyTile, next_keys);
    else
      commit_async_group();
  };

  Scores s;
  for (int k0 = 0, stage = 0; k0 < tile.length; k0 += kKeyTile, stage = (stage + 1) % kStages) {
    const int keys = min(kKeyTile, tile.length - k0);
    const int next_keys = min(kKeyTile, tile.length - k0 - kKeyTile);  // <= 0: no next tile
    const std::uint16_t* stage_keys = key_tile + stage * kTileElements;
    const std::uint16_t* stage_values = value_tile + stage * kTileElements;
    if constexpr (kStages == 2) {
      // In flight: this tile's keys and values, nothing else.
      wait_async_groups<0>();
      // They are in for every thread, and every warp is done with the
      // other stage: the next tile goes there while this one is computed.
      __syncthreads();
      if (next_keys > 0) {
        const int other = (stage + 1) % 2 * kTileElements;
        queue_tile<D, kThreads>(key_tile + other, k16, k_stride, k0 + kKeyTile, next_keys);
        queue_tile<D, kThreads>(value_tile + other, v16, v_stride, k0 + kKeyTile, next_keys);
      }
    } else {
      // In flight: this tile's keys, then its values.
      wait_async_groups<1>();
      __syncthreads();  // this tile's keys are in for every thread
    }
    if (warp_active) {
      clear(s);
#pragma unroll
      for (int step = 0; step < kSteps; ++step) score_step(s, stage_keys, step);
    }
    if constexpr (kStages == 1) refill(key_tile, k16, k_stride, k0, next_keys);
    if (warp_active) rescale(s, k0, keys);
    if constexpr (kStages == 1) {
      // In flight: this tile's values, then the next tile's keys.
      wait_async_groups<1>();
      __syncthreads();  // this tile's values are in for every thread
    }
    if (warp_active) {
#pragma unroll
      for (int step = 0; step < kSteps; ++step) accumulate_step(s, stage_values, step);
    }
    if constexpr (kStages == 1) refill(value_tile, v16, v_stride, k0, next_keys);
  }
  if (!warp_active) return;
  const std::size_t row_stride = static_cast<std::size_t>(heads) * D;
  T* dst = out + static_cast<std::size_t>(tile.begin) * row_stride +
           static_cast<std::size_t>(head) * D + 2 * pair;
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
    float sa = sum_a[m], sb = sum_b[m];
    sa += warp_shuffle_xor(sa, 1);
    sa += warp_shuffle_xor(sa, 2);
    sb += warp_shuffle_xor(sb, 1);
    sb += warp_shuffle_xor(sb, 2);
    // Sums >= 1 for rows in the sequence: each row's maximum contributes 2^0.
    const float inverse_a = 1.0f / sa, inverse_b = 1.0f / sb;
#pragma unroll
    for (int n = 0; n < kOutBlocks; ++n) {
      // The value bias of this lane's two channels (P (V + b) = P V + b).
      float bias0 = 0.0f, bias1 = 0.0f;
      if (value_bias) {
        bias0 = value_bias[head * D + n * 8 + 2 * pair];
        bias1 = value_bias[head * D + n * 8 + 2 * pair + 1];
      }
      if (row_a[m] < tile.length)
        *reinterpret_cast<std::uint32_t*>(dst + row_a[m] * row_stride + n * 8) =
            pack_pair<T>(fmaf(o[m][n][0], inverse_a, bias0), fmaf(o[m][n][1], inverse_a, bias1));
      if (row_b[m] < tile.length)
        *reinterpret_cast<std::uint32_t*>(dst + row_b[m] * row_stride + n * 8) =
            pack_pair<T>(fmaf(o[m][n][2], inverse_b, bias0), fmaf(o[m][n][3], inverse_b, bias1));
    }
  }
#else
  // Never launched: attention_kernel_for() picks this kernel only on sm_80+.
  (void)query, (void)key, (void)value, (void)in, (void)value_bias, (void)tiles, (void)heads;
  (void)out;
  (void)position_bias, (void)bias_tokens;
#endif
}

template <int D, class T, int kWarps, int kMTiles, int kStages>
void launch_stages(const VarlenAttention& job, gpuStream_t stream) {
  constexpr int kSplit = kRowsPerTile / (kWarps * 16 * kMTiles);
  const dim3 grid(static_cast<unsigned>(job.tile_count * kSplit), static_cast<unsigned>(job.heads));
  constexpr int kThreads = kWarps * kMmaLanes;
  const auto* query = static_cast<const T*>(job.query);
  const auto* key = static_cast<const T*>(job.key);
  const auto* value = static_cast<const T*>(job.value);
  const int heads = static_cast<int>(job.heads), bias_tokens = static_cast<int>(job.bias_tokens);
  auto* out = static_cast<T*>(job.out);
  const AttentionStrides in = attention_strides(job);
  if (job.position_bias)
    mma_attention_kernel<D, T, true, kWarps, kMTiles, kStages>
        <<<grid, kThreads, 0, stream>>>(query, key, value, in, job.value_bias, job.tiles, heads,
                                        job.position_bias, bias_tokens, out);
  else
    mma_attention_kernel<D, T, false, kWarps, kMTiles, kStages><<<grid, kThreads, 0, stream>>>(
        query, key, value, in, job.value_bias, job.tiles, heads, nullptr, 0, out);
  GPU_CHECK_LAUNCH();
}

template <int D, class T, int kWarps, int kMTiles>
void launch(const VarlenAttention& job, gpuStream_t stream) {
  launch_stages<D, T, kWarps, kMTiles, kTwoBuffersFit<D> ? 2 : 1>(job, stream);
}

// 4 x 32 holds twice the accumulators per warp: head sizes up to 64 (at 128
// they would not fit the registers; 8 x 16 runs instead).
template <int D, class T>
void launch(const VarlenAttention& job, gpuStream_t stream) {
  MmaLayout layout = job.mma_layout;
  if (layout == MmaLayout::automatic)
    layout = D == 64 ? MmaLayout::warps4_rows32 : MmaLayout::warps4_rows16;
  if (layout == MmaLayout::warps4_rows16) return launch<D, T, 4, 1>(job, stream);
  if constexpr (D <= 64) {
    if (layout == MmaLayout::warps4_rows32) return launch<D, T, 4, 2>(job, stream);
  }
  launch<D, T, 8, 1>(job, stream);
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
