#include "models/cpu_kernels.hpp"

#include <algorithm>

#include "models/cpu_math.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
#define SEQFUSE_CPU_VARIANTS \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SEQFUSE_CPU_VARIANTS
#endif

namespace seqfuse::models {
namespace {

constexpr std::size_t kLanes = 16;

// A float reduction may not be reordered, so a plain loop stays scalar;
// fixed lanes let it vectorize and give the same result on every ISA.
inline float row_max(const float* row, std::size_t n) {
  const std::size_t full = n - n % kLanes;
  float lane[kLanes];
  std::fill(lane, lane + kLanes, row[0]);
  for (std::size_t j = 0; j < full; j += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] = row[j + l] > lane[l] ? row[j + l] : lane[l];
  float best = row[0];
  for (float v : lane) best = v > best ? v : best;
  for (std::size_t j = full; j < n; ++j) best = row[j] > best ? row[j] : best;
  return best;
}

inline double row_sum(const float* row, std::size_t n) {
  const std::size_t full = n - n % kLanes;
  float lane[kLanes] = {};
  for (std::size_t j = 0; j < full; j += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] += row[j + l];
  double sum = 0;  // terms in (0, 1]; a lane holds at most n / 16 of them
  for (float v : lane) sum += v;
  for (std::size_t j = full; j < n; ++j) sum += row[j];
  return sum;
}

}  // namespace

SEQFUSE_CPU_VARIANTS
void softmax_rows(float* scores, std::size_t rows, std::size_t n) {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = scores + r * n;
    const float max_score = row_max(row, n);
    for (std::size_t j = 0; j < n; ++j) {
      const float x = row[j] - max_score;
      row[j] = x < kExpLowest ? kExpLowest : x;
    }
    for (std::size_t j = 0; j < n; ++j) row[j] = exp_clamped(row[j]);
    const auto inverse = static_cast<float>(1.0 / row_sum(row, n));
    for (std::size_t j = 0; j < n; ++j) row[j] *= inverse;
  }
}

SEQFUSE_CPU_VARIANTS
void gelu_in_place(float* values, std::size_t n) {
  // In blocks: clamp first, then the branch-free erf (see exp_clamped's note).
  // The arithmetic is the GPU kernel's (gpu/nn/nn_math.hpp).
  constexpr std::size_t kBlock = 256;
  float arg[kBlock];
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t count = std::min(kBlock, n - begin);
    float* x = values + begin;
    for (std::size_t i = 0; i < count; ++i) arg[i] = gpu::nn::gelu_argument(x[i]);
    for (std::size_t i = 0; i < count; ++i) x[i] = gpu::nn::gelu_with_argument(x[i], arg[i]);
  }
}

}  // namespace seqfuse::models
