// The CPU engine's own math against the standard library: the vectorizable
// exp and erf, softmax rows, GELU, and mean pooling.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>

#include "models/cpu_kernels.hpp"
#include "models/cpu_math.hpp"
#include "models/pooling.hpp"

using namespace seqfuse::models;

TEST_CASE("embed math: exp_clamped is within 3 ulp of exp on [-87, 0]", "[embed]") {
  double worst = 0;
  for (int i = 0; i <= 870000; ++i) {
    const float x = -static_cast<float>(i) * 1e-4f;
    const double want = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(exp_clamped(x) - want) / want);
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 3.6e-7);
  CHECK(exp_clamped(0.0f) == 1.0f);
}

TEST_CASE("embed math: erf_clamped is within 5e-7 of erf on [-4, 4]", "[embed]") {
  double worst = 0;
  for (int i = -400000; i <= 400000; ++i) {
    const float x = static_cast<float>(i) * 1e-5f;
    worst = std::max(worst, std::abs(erf_clamped(x) - std::erf(static_cast<double>(x))));
  }
  INFO("worst absolute error " << worst);
  CHECK(worst < 5e-7);  // a few float ulp near 1
  CHECK(erf_clamped(0.0f) == 0.0f);
}

TEST_CASE("embed math: GELU matches x/2 (1 + erf(x / sqrt 2))", "[embed]") {
  std::vector<float> x;
  for (int i = -2000; i <= 2000; ++i) x.push_back(static_cast<float>(i) * 0.01f);  // [-20, 20]
  x.push_back(-1e30f);
  x.push_back(1e30f);
  std::vector<float> y = x;
  gelu_in_place(y.data(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double want = v * 0.5 * (1.0 + std::erf(v / std::sqrt(2.0)));
    INFO("x = " << v);
    // About 2.5 float ulps of x: builds round the polynomial differently
    // (the ASan build at -O1 is 9.604e-7 off at x = 4.8, 2 ulps there).
    REQUIRE(std::abs(y[i] - want) <= 3e-7 * std::max(1.0, std::abs(v)));
  }
}

TEST_CASE("embed math: softmax rows sum to one and match the definition", "[embed]") {
  for (std::size_t n : {1u, 2u, 7u, 15u, 16u, 17u, 100u, 1027u}) {
    const std::size_t rows = 3;
    std::vector<float> scores(rows * n);
    for (std::size_t j = 0; j < scores.size(); ++j)
      scores[j] = std::sin(float(j) * 1.7f) * 30.0f - 5.0f;
    std::vector<float> probabilities = scores;
    softmax_rows(probabilities.data(), rows, n);
    for (std::size_t r = 0; r < rows; ++r) {
      const float* s = scores.data() + r * n;
      const float* p = probabilities.data() + r * n;
      const double max_score = *std::max_element(s, s + n);
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j) sum += std::exp(double(s[j]) - max_score);
      for (std::size_t j = 0; j < n; ++j)
        REQUIRE(p[j] == Approx(std::exp(double(s[j]) - max_score) / sum).margin(1e-7));
      CHECK(std::accumulate(p, p + n, 0.0) == Approx(1.0).epsilon(1e-6));
    }
  }
  std::vector<float> extreme = {0.0f, -200.0f, 50.0f};  // e^-250 underflows to ~0, not NaN
  softmax_rows(extreme.data(), 1, 3);
  CHECK(extreme[2] == Approx(1.0f));
  CHECK(extreme[1] >= 0.0f);
  CHECK(extreme[1] < 1e-30f);
}

TEST_CASE("embed math: pooling over residues skips BOS and EOS", "[embed]") {
  // 4 tokens x 2 channels: BOS, two residues, EOS.
  const std::vector<float> states = {100, 100, 1, 2, 3, 6, -100, -100};
  float out[8];
  pool_hidden_states(Pooling::mean, states.data(), 4, 2, out);
  CHECK(out[0] == 2.0f);
  CHECK(out[1] == 4.0f);
  pool_hidden_states(Pooling::bos, states.data(), 4, 2, out);
  CHECK(out[0] == 100.0f);
  pool_hidden_states(Pooling::none, states.data(), 4, 2, out);
  CHECK(std::vector<float>(out, out + 8) == states);
  CHECK(pooled_rows(Pooling::none, 4) == 4);
  CHECK(pooled_rows(Pooling::mean, 4) == 1);
  pool_hidden_states(Pooling::mean, states.data(), 2, 2, out);  // no residue: NaN, as torch
  CHECK(std::isnan(out[0]));
}
