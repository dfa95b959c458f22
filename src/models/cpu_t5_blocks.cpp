#include "models/cpu_t5_blocks.hpp"

#include <cmath>

#include "models/t5_math.hpp"

namespace seqfuse::models {

void rms_norm_rows(const float* in, std::size_t rows, std::size_t hidden,
                   const std::vector<float>& weight, double eps, float* out) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* x = in + r * hidden;
    double squares = 0;
    for (std::size_t c = 0; c < hidden; ++c) squares += static_cast<double>(x[c]) * x[c];
    const double inverse_rms = 1.0 / std::sqrt(squares / static_cast<double>(hidden) + eps);
    float* y = out + r * hidden;
    for (std::size_t c = 0; c < hidden; ++c) y[c] = rms_norm_value(x[c], inverse_rms, weight[c]);
  }
}

}  // namespace seqfuse::models
