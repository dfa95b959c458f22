// Bias + exact-erf GELU after the intermediate (up-projection) GEMM. Plain
// C++ (src/ calls it); the kernel is in gelu.cu.
#pragma once

#include <cstddef>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "gpu/nn/nn_types.hpp"

namespace seqfuse::gpu::nn {

// out[r][c] = gelu_erf(in[r][c] + bias[c]) (nn_math.hpp, the CPU engine's
// GELU), stored as `out_type` for the next GEMM. `in` is fp32 or of
// out_type; with the same type it may be `out` itself (in place). `cols`
// must be even (every ESM-2 intermediate size is).
[[nodiscard]] Status bias_gelu(const void* in, NnType in_type, const float* bias, std::size_t rows,
                               std::size_t cols, void* out, NnType out_type, Stream& stream);

}  // namespace seqfuse::gpu::nn
