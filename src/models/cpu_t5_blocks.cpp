#include "models/cpu_t5_blocks.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "models/cpu_blocks.hpp"
#include "models/cpu_kernels.hpp"
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

void attend_head_biased(const float* query, const float* key, const float* value,
                        std::size_t ld_value, std::size_t tokens, std::size_t d,
                        const float* bias_center, float* out, std::size_t ld_out,
                        std::vector<float>& scores_buffer) {
  // In blocks of query rows (cpu_blocks' kQueryBlock), so the score block
  // stays small for long sequences.
  for (std::size_t row = 0; row < tokens; row += kQueryBlock) {
    const std::size_t rows = std::min(kQueryBlock, tokens - row);
    scores_buffer.resize(rows * tokens);
    float* scores = scores_buffer.data();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows),
                static_cast<int>(tokens), static_cast<int>(d), 1.0f, query + row * d,
                static_cast<int>(d), key, static_cast<int>(d), 0.0f, scores,
                static_cast<int>(tokens));
    for (std::size_t r = 0; r < rows; ++r) {
      // Key j of query i = row + r has offset j - i: the biases from -i on.
      const float* bias = bias_center - static_cast<std::ptrdiff_t>(row + r);
      float* s = scores + r * tokens;
      for (std::size_t j = 0; j < tokens; ++j) s[j] += bias[j];
    }
    softmax_rows(scores, rows, tokens);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(d), static_cast<int>(tokens), 1.0f, scores,
                static_cast<int>(tokens), value, static_cast<int>(ld_value), 0.0f,
                out + row * ld_out, static_cast<int>(ld_out));
  }
}

}  // namespace seqfuse::models
