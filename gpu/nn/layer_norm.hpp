// LayerNorm fused with the residual add that precedes it in a pre-LN block,
// and the in-place form of post-LN blocks.
// Plain C++ (src/ calls it); the kernel is in layer_norm.cu.
#pragma once

#include <cstddef>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

// For each of `rows` rows of `hidden` floats: residual += delta (skipped when
// delta is null), then out = LayerNorm(residual) x weight + bias, stored as
// `out_type`. Statistics in double (torch's biased variance), as the CPU
// engine (nn_math.hpp: layer_norm_value). `out` must not overlap residual.
[[nodiscard]] Status add_layer_norm(float* residual, const float* delta, std::size_t rows,
                                    std::size_t hidden, const float* weight, const float* bias,
                                    double eps, void* out, NnType out_type, Stream& stream);

// Post-LN blocks (BERT): each row of `residual` becomes LayerNorm(row) x
// weight + bias in place (fp32, the same arithmetic as add_layer_norm), and
// `copy`, unless null, receives the same values as `copy_type` (the next
// GEMM's input).
[[nodiscard]] Status layer_norm_in_place(float* residual, std::size_t rows, std::size_t hidden,
                                         const float* weight, const float* bias, double eps,
                                         void* copy, NnType copy_type, Stream& stream);

}  // namespace seqfuse::gpu::nn
