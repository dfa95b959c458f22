// Launch helpers of the gpu/nn ops (device compilation only).
#pragma once

#include <cstddef>

#include "../runtime.hpp"
#include "../vendor.cuh"

namespace seqfuse::gpu::nn {

inline gpuStream_t native_stream(Stream& stream) {
  return static_cast<gpuStream_t>(stream.native());
}

inline unsigned blocks_for(std::size_t items, unsigned threads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

}  // namespace seqfuse::gpu::nn
