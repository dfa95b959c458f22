// fp32 to a GEMM operand type, for uploading weights once. Plain C++ (src/
// calls it); the kernel is in convert.cu.
#pragma once

#include <cstddef>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "gpu/nn/nn_types.hpp"

namespace seqfuse::gpu::nn {

// out[i] = in[i] rounded to `type` (nearest, ties to even); a copy for f32.
[[nodiscard]] Status convert_from_f32(const float* in, std::size_t n, void* out, NnType type,
                                      Stream& stream);

}  // namespace seqfuse::gpu::nn
