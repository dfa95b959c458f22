// Self-attention over packed variable-length sequences: each sequence
// attends to its own tokens only, with no padding. FlashAttention-style: key
// and value tiles pass through shared memory and each query row keeps an
// online softmax, so no score matrix is ever stored and memory does not
// grow with sequence length. Plain C++ (src/ calls it). Two kernels: with
// 16-bit inputs on NVIDIA sm_80 and later, a tensor-core one
// (attention_mma.cu: both products on mma.sync, fp32 softmax and
// accumulation); otherwise, and for fp32 inputs, the portable CUDA-core one
// (attention.cu), which HIP builds run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

// Query rows per tile. A thread block of the tensor-core kernel takes one
// tile of one head (or half of one: MmaLayout); the CUDA-core kernel's
// blocks take half a tile each. With 128 rows a block, each key and value
// tile read from L2 serves twice the products (ncu, ESM-2 650M shape on an
// H100: 105 M L2 sectors against 171 M), though L2 turned out not to be the
// kernel's bound: dependency latency at 25 % occupancy is (run 34).
inline constexpr std::size_t kAttentionQueryTile = 128;

// A tile of query rows of one sequence: rows [first_query, first_query +
// kAttentionQueryTile) of the sequence at tokens [begin, begin + length).
struct AttentionTile {
  std::int32_t begin = 0;
  std::int32_t length = 0;
  std::int32_t first_query = 0;
};

// Head dimensions the kernels are built for (ESM-2: 16 for 8M, 24 for 35M,
// 32 for 150M, 64 for 650M and 3B; ProtT5-XL: 128).
[[nodiscard]] bool attention_head_dim_supported(std::size_t head_dim) noexcept;

// Appends the tiles of a sequence at tokens [begin, begin + length).
void append_attention_tiles(std::size_t begin, std::size_t length,
                            std::vector<AttentionTile>& tiles);

// The tensor-core kernel's block: warps x query rows per warp. 8 x 16 and
// 4 x 32 take a whole 128-row tile (4 x 32: each fragment read from shared
// memory feeds two products; head sizes up to 64, past which its
// accumulators do not fit the registers and 8 x 16 runs); 4 x 16 takes
// half a tile, as the kernel did before the tiles grew to 128 rows.
// automatic: 4 x 32 at head size 64, 4 x 16 otherwise, the fastest measured
// (H100, run 34: head 64 196 against 193 TFLOP/s alone and 2.574 against
// 2.604 s for ESM-2 650M's forward pass; heads 16 and 128 ran 3-7 % slower
// in the 128-row layouts).
enum class MmaLayout { automatic, warps4_rows16, warps8_rows16, warps4_rows32 };
[[nodiscard]] const char* to_string(MmaLayout layout) noexcept;
// "4x16", "8x16" or "4x32"; false for anything else.
[[nodiscard]] bool parse_mma_layout(const char* text, MmaLayout& layout) noexcept;

// Strides of an attention operand in elements (VarlenAttention); zero: the
// head-major layout.
struct OperandStrides {
  std::size_t token = 0, head = 0;
};

struct VarlenAttention {
  // Each as `in_type`; the query already carries the model's score scale
  // (ESM-2, BERT: head_dim^-0.5; T5: none, 1), so the kernels never scale.
  // Element (head, token, c) of an operand is at operand + token x
  // token_stride + head x head_stride + c. Default (zero strides): the
  // head-major [heads][tokens][head_dim] that rotary.hpp writes; the fused
  // QKV GEMM's own output is [tokens][3][heads][head_dim] (token stride 3 x
  // heads x head_dim, head stride head_dim), which operands that need no
  // pass of their own are read from.
  const void* query = nullptr;
  const void* key = nullptr;
  const void* value = nullptr;
  OperandStrides query_strides, key_strides, value_strides;
  // Added to every output row, or null: [heads x head_dim] fp32, the value
  // projection's bias (softmax rows sum to 1, so P (V + b) = P V + b).
  const float* value_bias = nullptr;
  NnType in_type = NnType::f32;
  const AttentionTile* tiles = nullptr;  // device copy of the batch's tiles
  std::size_t tile_count = 0;
  std::size_t tokens = 0, heads = 0, head_dim = 0;
  // T5's relative position bias, added to every score, or null (ESM-2, BERT:
  // kernels built without the addition). [heads][2 bias_tokens - 1] fp32 by
  // offset (src/models/t5_math.hpp's t5_position_bias): the score of query
  // i and key j of a sequence gets entry (head, j - i + bias_tokens - 1).
  // Every sequence must be at most bias_tokens long (the caller checks).
  const float* position_bias = nullptr;
  std::size_t bias_tokens = 0;
  // softmax(q k^T (+ bias)) v per head, [tokens][heads x head_dim] as `out_type`:
  // the layout and type the attention output GEMM reads.
  void* out = nullptr;
  NnType out_type = NnType::f32;
  // false: the CUDA-core kernel even where tensor cores could run (tests and
  // timings compare the two).
  bool allow_tensor_cores = true;
  // The tensor-core kernel's block shape (tests and timings compare them).
  MmaLayout mma_layout = MmaLayout::automatic;
};

enum class AttentionKernel { cuda_cores, tensor_cores };

// The kernel varlen_attention runs for `job` on the calling thread's device.
[[nodiscard]] AttentionKernel attention_kernel_for(const VarlenAttention& job);
[[nodiscard]] const char* to_string(AttentionKernel kernel) noexcept;

[[nodiscard]] Status varlen_attention(const VarlenAttention& job, Stream& stream);

// The tensor-core kernel alone (attention_mma.cu); varlen_attention calls it
// after checking the job. Requires 16-bit inputs and out_type == in_type.
void launch_mma_attention(const VarlenAttention& job, Stream& stream);

}  // namespace seqfuse::gpu::nn
