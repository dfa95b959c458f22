// Row-block pieces of the T5 CPU engine that the shared blocks
// (cpu_blocks.hpp) do not have: T5's RMS LayerNorm. (Its attention with the
// relative position bias is cpu_blocks' attend_head with a bias row.)
#pragma once

#include <cstddef>
#include <vector>

namespace seqfuse::models {

// T5LayerNorm: x * rsqrt(mean(x^2) + eps) * weight; no mean subtraction, no
// bias; statistics in double. `out` may be `in`.
void rms_norm_rows(const float* in, std::size_t rows, std::size_t hidden,
                   const std::vector<float>& weight, double eps, float* out);

}  // namespace seqfuse::models
