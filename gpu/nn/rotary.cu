#include "gpu/nn/launch.cuh"
#include "gpu/nn/pairs.cuh"
#include "gpu/nn/rotary.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::nn {
namespace {

// One block per token, one thread per (head, channels c and c + 1 of the
// first half, with their partners c + d/2 and c + 1 + d/2): every access
// moves an adjacent pair (pairs.cuh), so a thread does the work of two
// with the same instruction count.
template <class In, class Out, bool kRotate>
static __global__ void qkv_bias_rotary_kernel(QkvRotary job) {
  const std::size_t t = blockIdx.x;
  const unsigned half = static_cast<unsigned>(job.head_dim / 2), pairs = half / 2;
  const unsigned head = threadIdx.x / pairs, c = 2 * (threadIdx.x % pairs);
  const std::size_t hidden = job.heads * job.head_dim;
  const std::size_t lo = head * job.head_dim + c, hi = lo + half;
  const In* row = static_cast<const In*>(job.qkv) + t * 3 * hidden;
  // No bias (null): zeros.
  const float* bias = job.bias;
  const auto b = [bias](std::size_t i) { return bias ? bias[i] : 0.0f; };

  float q_lo[2], q_hi[2], k_lo[2], k_hi[2], v_lo[2] = {0, 0}, v_hi[2] = {0, 0};
  load_two(row + lo, q_lo[0], q_lo[1]);
  load_two(row + hi, q_hi[0], q_hi[1]);
  load_two(row + hidden + lo, k_lo[0], k_lo[1]);
  load_two(row + hidden + hi, k_hi[0], k_hi[1]);
  const bool with_value = job.value != nullptr;
  if (with_value) {
    load_two(row + 2 * hidden + lo, v_lo[0], v_lo[1]);
    load_two(row + 2 * hidden + hi, v_hi[0], v_hi[1]);
  }
  float cs[2] = {1, 1}, sn[2] = {0, 0};
  if constexpr (kRotate) {
    const std::size_t angle = static_cast<std::size_t>(job.positions[t]) * half + c;
    load_two(job.cos + angle, cs[0], cs[1]);
    load_two(job.sin + angle, sn[0], sn[1]);
  }

  float q_out[4], k_out[4], v_out[4];  // lo pair, then hi pair
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const float ql = (q_lo[j] + b(lo + j)) * job.query_scale;
    const float qh = (q_hi[j] + b(hi + j)) * job.query_scale;
    const float kl = k_lo[j] + b(hidden + lo + j);
    const float kh = k_hi[j] + b(hidden + hi + j);
    if constexpr (kRotate) {
      q_out[j] = ql * cs[j] - qh * sn[j];
      q_out[2 + j] = qh * cs[j] + ql * sn[j];
      k_out[j] = kl * cs[j] - kh * sn[j];
      k_out[2 + j] = kh * cs[j] + kl * sn[j];
    } else {
      q_out[j] = ql;
      q_out[2 + j] = qh;
      k_out[j] = kl;
      k_out[2 + j] = kh;
    }
    v_out[j] = v_lo[j] + b(2 * hidden + lo + j);
    v_out[2 + j] = v_hi[j] + b(2 * hidden + hi + j);
  }
  const std::size_t out = (head * job.tokens + t) * job.head_dim + c;
  Out* query = static_cast<Out*>(job.query);
  Out* key = static_cast<Out*>(job.key);
  Out* value = static_cast<Out*>(job.value);
  store_two(query + out, q_out[0], q_out[1]);
  store_two(query + out + half, q_out[2], q_out[3]);
  store_two(key + out, k_out[0], k_out[1]);
  store_two(key + out + half, k_out[2], k_out[3]);
  if (with_value) {
    store_two(value + out, v_out[0], v_out[1]);
    store_two(value + out + half, v_out[2], v_out[3]);
  }
}

template <class In, class Out>
void launch_qkv_bias_rotary(const QkvRotary& job, gpuStream_t stream) {
  const auto threads = static_cast<unsigned>(job.heads * job.head_dim / 4);
  if (job.rotate)
    qkv_bias_rotary_kernel<In, Out, true>
        <<<static_cast<unsigned>(job.tokens), threads, 0, stream>>>(job);
  else
    qkv_bias_rotary_kernel<In, Out, false>
        <<<static_cast<unsigned>(job.tokens), threads, 0, stream>>>(job);
  GPU_CHECK_LAUNCH();
}

// The GEMM's output in fp32 or already in the output type.
template <class Out>
void launch_for_input(const QkvRotary& job, gpuStream_t stream) {
  if (job.qkv_type == NnType::f32)
    launch_qkv_bias_rotary<float, Out>(job, stream);
  else
    launch_qkv_bias_rotary<Out, Out>(job, stream);
}

}  // namespace

Status qkv_bias_rotary(const QkvRotary& job, Stream& stream) {
  if (job.tokens == 0) return Status::kSuccess;
  // Pairs of channel pairs: head_dim % 4 == 0 (ESM-2's are 16 to 64); one
  // block per token, a thread per four channels.
  if (job.heads == 0 || job.head_dim < 4 || job.head_dim % 4 != 0 ||
      (job.rotate && job.table_positions == 0) || job.heads * job.head_dim / 4 > 1024 ||
      job.tokens > 0x7fffffffu)
    return Status::kInvalidSize;
  if (!job.qkv || !job.query || !job.key ||
      (job.rotate && (!job.positions || !job.cos || !job.sin)))
    return Status::kNullBuffer;
  if (job.qkv_type != NnType::f32 && job.qkv_type != job.out_type) return Status::kInvalidArgument;
  const gpuStream_t s = native_stream(stream);
  switch (job.out_type) {
    case NnType::f32:
      launch_for_input<float>(job, s);
      break;
    case NnType::bf16:
      launch_for_input<bf16_t>(job, s);
      break;
    case NnType::f16:
      launch_for_input<f16_t>(job, s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
