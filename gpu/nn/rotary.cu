#include "../vendor.cuh"
#include "launch.cuh"
#include "rotary.hpp"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

// One thread per (token, head, channel pair c, c + d/2).
template <class In, class Out>
static __global__ void qkv_bias_rotary_kernel(QkvRotary job) {
  const std::size_t half = job.head_dim / 2;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= job.tokens * job.heads * half) return;
  const std::size_t c = i % half;
  const std::size_t head = (i / half) % job.heads;
  const std::size_t t = i / (half * job.heads);
  const std::size_t hidden = job.heads * job.head_dim;
  const std::size_t lo = head * job.head_dim + c, hi = lo + half;
  const In* row = static_cast<const In*>(job.qkv) + t * 3 * hidden;

  const float q_lo = (to_float(row[lo]) + job.bias[lo]) * job.query_scale;
  const float q_hi = (to_float(row[hi]) + job.bias[hi]) * job.query_scale;
  const float k_lo = to_float(row[hidden + lo]) + job.bias[hidden + lo];
  const float k_hi = to_float(row[hidden + hi]) + job.bias[hidden + hi];
  const std::size_t angle = static_cast<std::size_t>(job.positions[t]) * half + c;
  const float cs = job.cos[angle], sn = job.sin[angle];

  const std::size_t out = (head * job.tokens + t) * job.head_dim + c;
  Out* query = static_cast<Out*>(job.query);
  Out* key = static_cast<Out*>(job.key);
  Out* value = static_cast<Out*>(job.value);
  query[out] = from_float<Out>(q_lo * cs - q_hi * sn);
  query[out + half] = from_float<Out>(q_hi * cs + q_lo * sn);
  key[out] = from_float<Out>(k_lo * cs - k_hi * sn);
  key[out + half] = from_float<Out>(k_hi * cs + k_lo * sn);
  value[out] = from_float<Out>(to_float(row[2 * hidden + lo]) + job.bias[2 * hidden + lo]);
  value[out + half] = from_float<Out>(to_float(row[2 * hidden + hi]) + job.bias[2 * hidden + hi]);
}

template <class In, class Out>
void launch_qkv_bias_rotary(const QkvRotary& job, gpuStream_t stream) {
  const std::size_t items = job.tokens * job.heads * (job.head_dim / 2);
  qkv_bias_rotary_kernel<In, Out><<<blocks_for(items, kThreads), kThreads, 0, stream>>>(job);
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
  if (job.heads == 0 || job.head_dim < 2 || job.head_dim % 2 != 0 || job.table_positions == 0)
    return Status::kInvalidSize;
  if (!job.qkv || !job.bias || !job.positions || !job.cos || !job.sin || !job.query || !job.key ||
      !job.value)
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
