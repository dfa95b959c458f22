// Static scales for --dtype fp8 (ESM-2 on the GPU engine): bounds on what a
// GEMM's e4m3 input can hold, derived from the weights alone at load, so no
// pass over the activations looks for their largest value (amax) and every
// batch is quantized alike, whatever it holds. e4m3 is a float format (3
// mantissa bits from 2^-6 to 448), so a bound looser than the values it
// covers costs no precision until values fall below 2^-6 of the scale; a
// bound it exceeds would saturate. Host only, plain C++.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace seqfuse::models {

// The largest |y_i| a LayerNorm can output, y = (x - mean) / std x weight +
// bias over rows of n = weight.size(): a normalized value is at most
// sqrt(n - 1) in magnitude (all of the row's deviation on one element).
[[nodiscard]] float layer_norm_element_bound(const std::vector<float>& weight,
                                             const std::vector<float>& bias);

// The largest Euclidean norm of such an output row: the normalized row has
// norm sqrt(n), so ||y|| <= max|weight| sqrt(n) + ||bias||.
[[nodiscard]] float layer_norm_row_bound(const std::vector<float>& weight,
                                         const std::vector<float>& bias);

// The largest |h_j| of h = x w^T + bias (w [out][in] row-major) over inputs
// x of norm at most `input_row_bound` (Cauchy-Schwarz: ||x|| ||w_j|| +
// |bias_j|), widened by (1 + 2^-4)^2 + 1 % for x and w rounded to e4m3 and
// the bias to bf16. GELU's output is bounded by it too (|GELU(h)| <= |h| for
// |h| >= 0.17, and below that by 0.17).
[[nodiscard]] float linear_output_bound(float input_row_bound, const std::vector<float>& weight,
                                        const std::vector<float>& bias, std::size_t out,
                                        std::size_t in);

// The per-tensor scale that maps values up to `bound` onto e4m3's range
// (value = stored x scale): bound / 448; 1 for a zero or non-finite bound.
[[nodiscard]] float e4m3_scale_for(float bound);

// The per-tensor scale of a weight tensor (its largest magnitude over 448).
[[nodiscard]] float e4m3_weight_scale(std::initializer_list<const std::vector<float>*> parts);

}  // namespace seqfuse::models
