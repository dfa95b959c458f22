// The CPU engine's own math against the standard library: the vectorizable
// exp and softmax, and mean pooling.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>

#include "models/pooling.hpp"
#include "models/softmax.hpp"

using namespace seqfuse::models;

TEST_CASE("embed math: exp_clamped is within a few ulp of std::exp on [-87, 0]", "[embed]") {
  double worst = 0;
  for (int i = 0; i <= 870000; ++i) {
    const float x = -static_cast<float>(i) * 1e-4f;
    const double want = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(exp_clamped(x) - want) / want);
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 3.6e-7);  // 3 ulp of float
  CHECK(exp_clamped(0.0f) == 1.0f);
}

TEST_CASE("embed math: softmax rows sum to one and match the definition", "[embed]") {
  for (std::size_t n : {1u, 2u, 7u, 8u, 9u, 100u, 1027u}) {
    std::vector<float> row(n);
    for (std::size_t j = 0; j < n; ++j) row[j] = std::sin(float(j) * 1.7f) * 30.0f - 5.0f;
    const std::vector<float> scores = row;
    softmax_in_place(row.data(), n);
    double max_score = *std::max_element(scores.begin(), scores.end()), sum = 0;
    for (float s : scores) sum += std::exp(double(s) - max_score);
    for (std::size_t j = 0; j < n; ++j)
      REQUIRE(row[j] == Approx(std::exp(double(scores[j]) - max_score) / sum).margin(1e-7));
    CHECK(std::accumulate(row.begin(), row.end(), 0.0) == Approx(1.0).epsilon(1e-6));
  }
  std::vector<float> extreme = {0.0f, -200.0f, 50.0f};  // e^-250 underflows to ~0, not NaN
  softmax_in_place(extreme.data(), 3);
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
