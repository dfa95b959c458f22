// --dtype fp8's host-side parts, on the CPU: the e4m3 conversions the GPU
// kernels and the weight upload share (gpu/nn/nn_types.hpp, host-device
// code), against a brute-force nearest-value search over every code, and
// the static scales' bounds (models/fp8_bounds.hpp) against LayerNorm and
// linear outputs of random rows built to reach them. The fp8 engine itself
// runs in test_embed_gpu.cpp ([gpu]).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gpu/nn/nn_types.hpp"
#include "models/fp8_bounds.hpp"

namespace nn = seqfuse::gpu::nn;
using namespace seqfuse::models;

namespace {

// The e4m3 code nearest to x (ties to the even code), found by trying all
// finite codes; magnitudes from 448 up saturate.
std::uint8_t nearest_code(float x) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(static_cast<double>(x));
  if (a >= 448) return sign | 0x7e;
  std::uint8_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::uint8_t code = 0; code <= 0x7e; ++code) {
    const double distance = std::fabs(nn::to_float(nn::e4m3_t{code}) - a);
    if (distance < best_distance || (distance == best_distance && (code & 1) == 0)) {
      best = code;
      best_distance = distance;
    }
  }
  return sign | best;
}

// LayerNorm of one row as the engines compute it (biased variance, eps 0).
std::vector<float> layer_norm(const std::vector<float>& x, const std::vector<float>& weight,
                              const std::vector<float>& bias) {
  double mean = 0, squares = 0;
  for (const float v : x) mean += v;
  mean /= static_cast<double>(x.size());
  for (const float v : x) squares += (v - mean) * (v - mean);
  const double inverse_std = 1.0 / std::sqrt(squares / static_cast<double>(x.size()));
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = static_cast<float>((x[i] - mean) * inverse_std * weight[i] + bias[i]);
  return y;
}

}  // namespace

TEST_CASE("fp8: e4m3 decodes every code and encodes to the nearest, ties to even", "[embed]") {
  for (unsigned code = 0; code < 256; ++code) {
    const float value = nn::to_float(nn::e4m3_t{static_cast<std::uint8_t>(code)});
    INFO("code " << code);
    if ((code & 0x7f) == 0x7f) {  // the NaN codes
      CHECK(std::isnan(value));
      CHECK((nn::to_e4m3(value).bits & 0x7f) == 0x7f);
      continue;
    }
    CHECK(nn::to_e4m3(value).bits == code);  // -0 too
    // The midpoint to the next code up rounds to the even one of the two.
    if ((code & 0x7f) < 0x7e) {
      const float next = nn::to_float(nn::e4m3_t{static_cast<std::uint8_t>(code + 1)});
      const float middle = (value + next) / 2;  // exact: few mantissa bits
      CHECK(nn::to_e4m3(middle).bits == ((code & 1) ? code + 1 : code));
    }
  }
  CHECK(nn::to_float(nn::e4m3_t{0x7e}) == nn::kE4m3Max);
  CHECK(nn::to_float(nn::e4m3_t{0x01}) == std::ldexp(1.0f, -9));  // the smallest subnormal
  CHECK(nn::to_float(nn::e4m3_t{0x08}) == std::ldexp(1.0f, -6));  // the smallest normal
  // Saturation, not infinity or NaN.
  CHECK(nn::to_e4m3(1e9f).bits == 0x7e);
  CHECK(nn::to_e4m3(-std::numeric_limits<float>::infinity()).bits == 0xfe);
  CHECK(nn::to_e4m3(464.0f).bits == 0x7e);

  std::mt19937 rng(20261128);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-14, 10);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    INFO("x = " << x);
    REQUIRE(nn::to_e4m3(x).bits == nearest_code(x));
  }
}

TEST_CASE("fp8: the static bounds hold the LayerNorm and linear outputs they scale", "[embed]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::size_t hidden = 96, out = 40;
  std::vector<float> weight(hidden), bias(hidden), w(out * hidden), b(out);
  for (auto& v : weight) v = 1.0f + 0.5f * normal(rng);
  for (auto& v : bias) v = 0.1f * normal(rng);
  for (auto& v : w) v = 0.05f * normal(rng);
  for (auto& v : b) v = 0.02f * normal(rng);
  const float element_bound = layer_norm_element_bound(weight, bias);
  const float row_bound = layer_norm_row_bound(weight, bias);
  const float linear_bound = linear_output_bound(row_bound, w, b, out, hidden);
  float most_element = 0, most_row = 0, most_linear = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<float> x(hidden);
    for (auto& v : x) v = normal(rng);
    if (trial % 4 == 0) {  // all the deviation on one element, either sign: the bound's case
      const auto k = static_cast<std::size_t>(trial / 4);
      std::fill(x.begin(), x.end(), 0.0f);
      x[k % hidden] = (k / hidden) % 2 ? -1.0f : 1.0f;
    } else if (trial % 4 == 1) {  // the row along a weight row: Cauchy-Schwarz's case
      const std::size_t j = static_cast<std::size_t>(trial / 4) % out;
      for (std::size_t i = 0; i < hidden; ++i) x[i] = w[j * hidden + i] / weight[i];
    }
    const std::vector<float> y = layer_norm(x, weight, bias);
    double norm = 0;
    for (const float v : y) {
      most_element = std::max(most_element, std::fabs(v));
      norm += static_cast<double>(v) * v;
    }
    most_row = std::max(most_row, static_cast<float>(std::sqrt(norm)));
    for (std::size_t j = 0; j < out; ++j) {
      double h = b[j];
      for (std::size_t i = 0; i < hidden; ++i) h += static_cast<double>(y[i]) * w[j * hidden + i];
      most_linear = std::max(most_linear, static_cast<float>(std::fabs(h)));
    }
  }
  CHECK(most_element <= element_bound);
  CHECK(most_row <= row_bound);
  CHECK(most_linear <= linear_bound);
  // Tight enough to be worth having: the one-element rows reach the
  // element bound within float rounding.
  CHECK(most_element >= 0.999f * element_bound);

  CHECK(e4m3_scale_for(448.0f) == 1.0f);
  CHECK(e4m3_scale_for(0.0f) == 1.0f);
  CHECK(e4m3_scale_for(std::numeric_limits<float>::infinity()) == 1.0f);
  const std::vector<float> a{0.5f, -2.0f}, c{1.5f};
  CHECK(e4m3_weight_scale({&a, &c}) == 2.0f / 448.0f);
}
