// Host values of one NnType and their bytes as the device stores them, for
// the gpu/nn tests' float64 references: a reference takes the very inputs the
// device got (already rounded to the type), so a test measures the kernel's
// own error.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/nn/nn_types.hpp"

namespace seqfuse::test {

struct Typed {
  std::vector<double> values;  // exactly representable in the type
  std::vector<std::uint8_t> bytes;
};

// n values drawn uniformly from [-spread, spread], rounded to `type`.
inline Typed make_typed(gpu::nn::NnType type, std::size_t n, std::mt19937_64& rng, double spread) {
  namespace nn = gpu::nn;
  std::uniform_real_distribution<float> draw(static_cast<float>(-spread),
                                             static_cast<float>(spread));
  Typed t;
  t.values.resize(n);
  t.bytes.resize(n * nn::element_bytes(type));
  for (std::size_t i = 0; i < n; ++i) {
    const float x = draw(rng);
    if (type == nn::NnType::f32) {
      t.values[i] = x;
      std::memcpy(t.bytes.data() + 4 * i, &x, 4);
    } else if (type == nn::NnType::bf16) {
      const nn::bf16_t h = nn::to_bf16(x);
      t.values[i] = nn::to_float(h);
      std::memcpy(t.bytes.data() + 2 * i, &h.bits, 2);
    } else {
      const nn::f16_t h = nn::to_f16(x);
      t.values[i] = nn::to_float(h);
      std::memcpy(t.bytes.data() + 2 * i, &h.bits, 2);
    }
  }
  return t;
}

// One stored value of `type` at p, as a double.
inline double read_typed(gpu::nn::NnType type, const std::uint8_t* p) {
  namespace nn = gpu::nn;
  if (type == nn::NnType::f32) {
    float x;
    std::memcpy(&x, p, 4);
    return x;
  }
  std::uint16_t bits;
  std::memcpy(&bits, p, 2);
  return type == nn::NnType::bf16 ? nn::to_float(nn::bf16_t{bits}) : nn::to_float(nn::f16_t{bits});
}

inline const char* type_name(gpu::nn::NnType type) {
  namespace nn = gpu::nn;
  return type == nn::NnType::f32 ? "fp32" : type == nn::NnType::bf16 ? "bf16" : "fp16";
}

}  // namespace seqfuse::test
