#include "gpu/vendor.cuh"
#include "gpu/nn/convert.hpp"
#include "gpu/nn/launch.cuh"

namespace seqfuse::gpu::nn {
namespace {

constexpr unsigned kThreads = 256;

template <class Out>
static __global__ void convert_kernel(const float* in, std::size_t n, Out* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = from_float<Out>(in[i]);
}

template <class Out>
void launch_convert(const float* in, std::size_t n, Out* out, gpuStream_t stream) {
  convert_kernel<Out><<<blocks_for(n, kThreads), kThreads, 0, stream>>>(in, n, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace

Status convert_from_f32(const float* in, std::size_t n, void* out, NnType type, Stream& stream) {
  if (n == 0) return Status::kSuccess;
  if (!in || !out) return Status::kNullBuffer;
  const gpuStream_t s = native_stream(stream);
  switch (type) {
    case NnType::f32:
      GPU_CHECK(gpuMemcpyAsync(out, in, n * sizeof(float), gpuMemcpyDeviceToDevice, s));
      break;
    case NnType::bf16:
      launch_convert(in, n, static_cast<bf16_t*>(out), s);
      break;
    case NnType::f16:
      launch_convert(in, n, static_cast<f16_t*>(out), s);
      break;
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::nn
