// Scalar math of the CPU engine, written branch-free in plain float
// arithmetic so that loops calling it vectorize (glibc's expf and erff are
// one call per element: together they took a third of the run time).
#pragma once

#include <bit>
#include <cstdint>

#include "gpu/nn/nn_math.hpp"

namespace seqfuse::models {

// Lowest argument exp_clamped takes: e^-87 is about FLT_MIN.
inline constexpr float kExpLowest = -87.0f;

// e^x for x in [kExpLowest, 0], within 3 ulp of expf (Cephes). Keep the clamp
// out of the loop that calls this: a compare there stops GCC vectorizing it.
[[nodiscard]] inline float exp_clamped(float x) {
  // x = k ln2 + r with |r| <= ln2 / 2 (k rounded: truncating t - 0.5 for t <= 0).
  const float t = x * 1.44269504088896341f;
  const auto k = static_cast<std::int32_t>(t - 0.5f);
  const float kf = static_cast<float>(k);
  const float r = (x - kf * 0.693359375f) + kf * 2.12194440e-4f;  // Cody-Waite split of ln2
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  return e_r * std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
}

// erf for x in [-4, 4] and the GELU built on it are shared with the GPU
// kernels (gpu/nn/nn_math.hpp), so both engines compute the same GELU.
using gpu::nn::erf_clamped;

}  // namespace seqfuse::models
