// T5's LayerNorm (RMS norm): no mean subtraction, no bias. Plain C++ (src/
// calls it); the kernel is in rms_norm.cu.
#pragma once

#include <cstddef>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

// out[r][c] = rms_norm_value(x[r][c], 1 / sqrt(mean_c(x[r][c]^2) + eps),
// weight[c]) (nn_math.hpp, the CPU engine's value; the mean
// taken in double, as there), stored as `out_type`. `x` is the fp32
// residual stream [rows][hidden]; `out` may be `x` only with an fp32 out_type.
[[nodiscard]] Status rms_norm(const float* x, std::size_t rows, std::size_t hidden,
                              const float* weight, double eps, void* out, NnType out_type,
                              Stream& stream);

}  // namespace seqfuse::gpu::nn
