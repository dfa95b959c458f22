#include "models/fp8_bounds.hpp"

#include <algorithm>
#include <cmath>

namespace seqfuse::models {
namespace {

constexpr float kE4m3Max = 448.0f;  // as gpu/nn/nn_types.hpp's kE4m3Max

float largest_magnitude(const std::vector<float>& values) {
  float largest = 0;
  for (const float v : values) largest = std::max(largest, std::fabs(v));
  return largest;
}

}  // namespace

float layer_norm_element_bound(const std::vector<float>& weight, const std::vector<float>& bias) {
  const std::size_t n = weight.size();
  const double most = n > 1 ? std::sqrt(static_cast<double>(n - 1)) : 0.0;
  double bound = 0;
  for (std::size_t i = 0; i < n; ++i)
    bound = std::max(bound, std::fabs(static_cast<double>(weight[i])) * most +
                                (i < bias.size() ? std::fabs(static_cast<double>(bias[i])) : 0.0));
  return static_cast<float>(bound);
}

float layer_norm_row_bound(const std::vector<float>& weight, const std::vector<float>& bias) {
  double bias_squares = 0;
  for (const float b : bias) bias_squares += static_cast<double>(b) * b;
  return static_cast<float>(largest_magnitude(weight) *
                                std::sqrt(static_cast<double>(weight.size())) +
                            std::sqrt(bias_squares));
}

float linear_output_bound(float input_row_bound, const std::vector<float>& weight,
                          const std::vector<float>& bias, std::size_t out, std::size_t in) {
  constexpr double kRounding = (1.0 + 1.0 / 16) * (1.0 + 1.0 / 16) * 1.01;
  double bound = 0;
  for (std::size_t j = 0; j < out; ++j) {
    double squares = 0;
    for (std::size_t i = 0; i < in; ++i) {
      const double w = weight[j * in + i];
      squares += w * w;
    }
    const double b = j < bias.size() ? std::fabs(static_cast<double>(bias[j])) : 0.0;
    bound = std::max(bound, static_cast<double>(input_row_bound) * std::sqrt(squares) + b);
  }
  return static_cast<float>(bound * kRounding);
}

float e4m3_scale_for(float bound) {
  if (!(bound > 0) || !std::isfinite(bound)) return 1.0f;
  return bound / kE4m3Max;
}

float e4m3_weight_scale(std::initializer_list<const std::vector<float>*> parts) {
  float largest = 0;
  for (const auto* part : parts) largest = std::max(largest, largest_magnitude(*part));
  return e4m3_scale_for(largest);
}

}  // namespace seqfuse::models
