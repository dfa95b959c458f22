// The CPU engine's softmax: a branch-free exp that the compiler vectorizes
// (glibc's expf is one call per element, and took a fifth of the run time
// on small models), and the row softmax built on it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace seqfuse::models {

// Lowest argument exp_clamped takes: e^-87 is about FLT_MIN.
inline constexpr float kExpLowest = -87.0f;

// e^x for x in [kExpLowest, 0], within 2 ulp of expf. Keep the clamp out of
// the loop that calls this: a compare there stops GCC from vectorizing it.
[[nodiscard]] inline float exp_clamped(float x) {
  // x = k ln2 + r with |r| <= ln2 / 2 (k rounded: truncating t - 0.5 for t <= 0).
  const float t = x * 1.44269504088896341f;
  const auto k = static_cast<std::int32_t>(t - 0.5f);
  const float kf = static_cast<float>(k);
  const float r = (x - kf * 0.693359375f) + kf * 2.12194440e-4f;  // Cody-Waite split of ln2
  // Cephes expf polynomial on [-ln2/2, ln2/2].
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  return e_r * std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
}

// Softmax of one row of n >= 1 scores, normalized, in place. The maximum and
// the sum run in eight lanes so they vectorize too (a plain reduction of
// floats may not be reordered, so the compiler keeps it scalar).
inline void softmax_in_place(float* row, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  const std::size_t full = n - n % kLanes;
  float lane_max[kLanes];
  std::fill(lane_max, lane_max + kLanes, row[0]);
  for (std::size_t j = 0; j < full; j += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l)
      lane_max[l] = row[j + l] > lane_max[l] ? row[j + l] : lane_max[l];
  float max_score = *std::max_element(lane_max, lane_max + kLanes);
  for (std::size_t j = full; j < n; ++j) max_score = std::max(max_score, row[j]);

  for (std::size_t j = 0; j < n; ++j) {
    const float x = row[j] - max_score;
    row[j] = x < kExpLowest ? kExpLowest : x;
  }
  for (std::size_t j = 0; j < n; ++j) row[j] = exp_clamped(row[j]);

  float lane_sum[kLanes] = {};
  for (std::size_t j = 0; j < full; j += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l) lane_sum[l] += row[j + l];
  double sum = 0;  // every term is in (0, 1]: lanes of up to n/8 floats lose nothing that matters
  for (float s : lane_sum) sum += s;
  for (std::size_t j = full; j < n; ++j) sum += row[j];
  const auto inverse = static_cast<float>(1.0 / sum);
  for (std::size_t j = 0; j < n; ++j) row[j] *= inverse;
}

}  // namespace seqfuse::models
