#include <cmath>
#include <cstdint>
#include <cstring>

// First: HIP builds get __host__ and __device__ from it (nvcc knows them).
#include "gpu/vendor.cuh"

#include "gpu/nn/attention.hpp"
#include "gpu/nn/attention_operands.cuh"
#include "gpu/nn/launch.cuh"

namespace seqfuse::gpu::nn {
namespace {

// One thread per query row of the tile: its query and running output stay
// in registers; its softmax is its own (no cross-thread reduction), and the
// block shares each key/value tile through shared memory, read as
// broadcasts (every thread reads the same key at the same time).
// Blocks take half a tile each: 64 threads, one query row each, as when
// the tiles were 64 rows.
constexpr int kQueryTile = 64;
constexpr int kHalves = static_cast<int>(kAttentionQueryTile) / kQueryTile;
static_assert(kHalves * kQueryTile == static_cast<int>(kAttentionQueryTile));
// Keys per shared tile: 64, or 32 for head size 128 (two fp32 tiles of 64 x
// 128 would pass the 48 KiB of static shared memory).
template <int D>
constexpr int kKeyTile = D > 64 ? 32 : 64;
// Keys scored before the running maximum is updated: one rescale of the
// output per chunk instead of per key.
constexpr int kChunk = 8;

// kBias (T5): each score gets its relative position's bias (attention.hpp);
// without it the kernel is the one ESM-2 and BERT always ran.
template <int D, class In, class Out, bool kBias>
static __global__ void __launch_bounds__(kQueryTile)
    varlen_attention_kernel(const In* query, const In* key, const In* value, AttentionStrides in,
                            const float* value_bias, const AttentionTile* tiles, int heads,
                            const float* position_bias, int bias_tokens, Out* out) {
  constexpr int kKeys = kKeyTile<D>;
  __shared__ float key_tile[kKeys * D];
  __shared__ float value_tile[kKeys * D];
  const AttentionTile tile = tiles[blockIdx.x / kHalves];
  const int first_row = tile.first_query + static_cast<int>(blockIdx.x % kHalves) * kQueryTile;
  if (first_row >= tile.length) return;  // the whole block: a tile's empty second half
  const int head = static_cast<int>(blockIdx.y);
  const int row = first_row + static_cast<int>(threadIdx.x);
  const bool active = row < tile.length;
  // The sequence's first row of this head in each operand.
  const In* query_rows = in.query.first_row(query, head, tile.begin);
  const In* key_rows = in.key.first_row(key, head, tile.begin);
  const In* value_rows = in.value.first_row(value, head, tile.begin);

  float q[D], acc[D];
#pragma unroll
  for (int c = 0; c < D; ++c) {
    q[c] = active ? to_float(query_rows[row * in.query.token + c]) : 0.0f;
    acc[c] = 0.0f;
  }
  float running_max = -INFINITY, running_sum = 0.0f;
  // This row's biases by key: entry j is key j's (offset j - row).
  [[maybe_unused]] const float* bias_by_key = nullptr;
  if constexpr (kBias)
    if (active)
      bias_by_key = position_bias + static_cast<std::size_t>(head) * (2 * bias_tokens - 1) +
                    (bias_tokens - 1) - row;

  for (int k0 = 0; k0 < tile.length; k0 += kKeys) {
    const int n = min(kKeys, tile.length - k0);
    __syncthreads();  // every thread is done with the previous tile
    for (int i = static_cast<int>(threadIdx.x); i < n * D; i += kQueryTile) {
      const std::size_t j = static_cast<std::size_t>(k0 + i / D);
      key_tile[i] = to_float(key_rows[j * in.key.token + i % D]);
      value_tile[i] = to_float(value_rows[j * in.value.token + i % D]);
    }
    __syncthreads();
    if (!active) continue;
    for (int j0 = 0; j0 < n; j0 += kChunk) {
      float score[kChunk];
      float chunk_max = -INFINITY;
#pragma unroll
      for (int jj = 0; jj < kChunk; ++jj) {
        const int j = j0 + jj;
        float dot = -INFINITY;
        if (j < n) {
          dot = 0.0f;
#pragma unroll
          for (int c = 0; c < D; ++c) dot += q[c] * key_tile[j * D + c];
          if constexpr (kBias) dot += bias_by_key[k0 + j];
        }
        score[jj] = dot;
        chunk_max = fmaxf(chunk_max, dot);
      }
      // chunk_max is finite: the chunk holds at least key j0 < n.
      const float new_max = fmaxf(running_max, chunk_max);
      const float correction = expf(running_max - new_max);  // 0 on the first chunk
      running_sum *= correction;
#pragma unroll
      for (int c = 0; c < D; ++c) acc[c] *= correction;
#pragma unroll
      for (int jj = 0; jj < kChunk; ++jj) {
        const int j = j0 + jj;
        if (j < n) {
          const float p = expf(score[jj] - new_max);
          running_sum += p;
#pragma unroll
          for (int c = 0; c < D; ++c) acc[c] += p * value_tile[j * D + c];
        }
      }
      running_max = new_max;
    }
  }
  if (!active) return;
  // running_sum >= 1: the row's own maximum contributes e^0.
  const float inverse = 1.0f / running_sum;
  Out* dst = out + (static_cast<std::size_t>(tile.begin) + row) * heads * D +
             static_cast<std::size_t>(head) * D;
#pragma unroll
  for (int c = 0; c < D; ++c)
    dst[c] = from_float<Out>(acc[c] * inverse + (value_bias ? value_bias[head * D + c] : 0.0f));
}

template <int D, class In, class Out>
void launch_varlen_attention(const VarlenAttention& job, gpuStream_t stream) {
  const dim3 grid(static_cast<unsigned>(job.tile_count * kHalves),
                  static_cast<unsigned>(job.heads));
  const auto* query = static_cast<const In*>(job.query);
  const auto* key = static_cast<const In*>(job.key);
  const auto* value = static_cast<const In*>(job.value);
  const int heads = static_cast<int>(job.heads), bias_tokens = static_cast<int>(job.bias_tokens);
  auto* out = static_cast<Out*>(job.out);
  const AttentionStrides in = attention_strides(job);
  if (job.position_bias)
    varlen_attention_kernel<D, In, Out, true>
        <<<grid, kQueryTile, 0, stream>>>(query, key, value, in, job.value_bias, job.tiles, heads,
                                          job.position_bias, bias_tokens, out);
  else
    varlen_attention_kernel<D, In, Out, false><<<grid, kQueryTile, 0, stream>>>(
        query, key, value, in, job.value_bias, job.tiles, heads, nullptr, 0, out);
  GPU_CHECK_LAUNCH();
}

template <int D, class In>
void launch_for_output(const VarlenAttention& job, gpuStream_t stream) {
  switch (job.out_type) {
    case NnType::f32:
      launch_varlen_attention<D, In, float>(job, stream);
      break;
    case NnType::bf16:
      launch_varlen_attention<D, In, bf16_t>(job, stream);
      break;
    case NnType::f16:
      launch_varlen_attention<D, In, f16_t>(job, stream);
      break;
  }
}

template <int D>
void launch_for_types(const VarlenAttention& job, gpuStream_t stream) {
  switch (job.in_type) {
    case NnType::f32:
      launch_for_output<D, float>(job, stream);
      break;
    case NnType::bf16:
      launch_for_output<D, bf16_t>(job, stream);
      break;
    case NnType::f16:
      launch_for_output<D, f16_t>(job, stream);
      break;
  }
}

}  // namespace

// The tensor-core kernel moves key and value rows as 16-byte vectors
// (cp.async) and query pairs as 4 bytes: every operand's rows must start
// 16-byte aligned (16-bit elements).
static bool rows_aligned16(const VarlenAttention& job) {
  const AttentionStrides in = attention_strides(job);
  const auto aligned = [](const void* operand, const OperandView& v) {
    return reinterpret_cast<std::uintptr_t>(operand) % 16 == 0 && v.token % 8 == 0 &&
           v.head % 8 == 0;
  };
  return aligned(job.query, in.query) && aligned(job.key, in.key) && aligned(job.value, in.value);
}

AttentionKernel attention_kernel_for(const VarlenAttention& job) {
#if SEQFUSE_VENDOR_CUDA
  // mma.sync m16n8k16 with bf16 needs sm_80; the build's targets are sm_80+.
  if (job.allow_tensor_cores && job.in_type != NnType::f32 && job.out_type == job.in_type &&
      rows_aligned16(job) && current_compute_major() >= 8)
    return AttentionKernel::tensor_cores;
#else
  (void)job;
#endif
  return AttentionKernel::cuda_cores;
}

const char* to_string(AttentionKernel kernel) noexcept {
  return kernel == AttentionKernel::tensor_cores ? "tensor cores (mma.sync)" : "CUDA cores";
}

const char* to_string(MmaLayout layout) noexcept {
  switch (layout) {
    case MmaLayout::warps4_rows16:
      return "4x16";
    case MmaLayout::warps8_rows16:
      return "8x16";
    case MmaLayout::warps4_rows32:
      return "4x32";
    default:
      return "automatic";
  }
}

bool parse_mma_layout(const char* text, MmaLayout& layout) noexcept {
  for (const MmaLayout l :
       {MmaLayout::warps4_rows16, MmaLayout::warps8_rows16, MmaLayout::warps4_rows32})
    if (text && std::strcmp(text, to_string(l)) == 0) {
      layout = l;
      return true;
    }
  return false;
}

bool attention_head_dim_supported(std::size_t head_dim) noexcept {
  return head_dim == 16 || head_dim == 24 || head_dim == 32 || head_dim == 64 || head_dim == 128;
}

void append_attention_tiles(std::size_t begin, std::size_t length,
                            std::vector<AttentionTile>& tiles) {
  for (std::size_t first = 0; first < length; first += kAttentionQueryTile)
    tiles.push_back({static_cast<std::int32_t>(begin), static_cast<std::int32_t>(length),
                     static_cast<std::int32_t>(first)});
}

Status varlen_attention(const VarlenAttention& job, Stream& stream) {
  if (job.tile_count == 0) return Status::kSuccess;
  if (!attention_head_dim_supported(job.head_dim)) return Status::kInvalidArgument;
  if (job.heads == 0 || job.heads > 65535 || job.tile_count > 0x3fffffffu ||
      job.tokens > 0x7fffffffu || job.bias_tokens > 0x3fffffffu)
    return Status::kInvalidSize;
  if (job.position_bias && job.bias_tokens == 0) return Status::kInvalidArgument;
  if (!job.query || !job.key || !job.value || !job.tiles || !job.out) return Status::kNullBuffer;
  if (attention_kernel_for(job) == AttentionKernel::tensor_cores) {
    launch_mma_attention(job, stream);
    return Status::kSuccess;
  }
  const gpuStream_t s = native_stream(stream);
  switch (job.head_dim) {
    case 16:
      launch_for_types<16>(job, s);
      break;
    case 24:
      launch_for_types<24>(job, s);
      break;
    case 32:
      launch_for_types<32>(job, s);
      break;
    case 64:
      launch_for_types<64>(job, s);
      break;
    default:
      launch_for_types<128>(job, s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
