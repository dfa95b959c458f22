// The GPU engine's weight upload (src/models/gpu_weights.hpp): WeightPlacer
// makes the device allocation's image on host threads and streams it
// through pinned blocks, so every tensor must land, bit for bit, where its
// device pointer says: fp32 ones as they are, typed ones as the kernels'
// own conversions (to_bf16, to_f16) round them, NaN, infinities and
// subnormals included; tensors that cross a staging block (64 MiB), stacked
// parts of odd lengths, and a tensor of one element.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "models/gpu_weights.hpp"

namespace nn = seqfuse::gpu::nn;
using seqfuse::models::gpu_embed::WeightPlacer;

namespace {

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
  std::vector<float> v(n);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& x : v) x = normal(rng);
  // Some raw bit patterns: NaN, infinities, subnormals, the extremes.
  for (std::size_t i = 0; i < n; i += 997) {
    const std::uint32_t bits = static_cast<std::uint32_t>(rng());
    std::memcpy(&v[i], &bits, sizeof bits);
  }
  return v;
}

// The bytes a tensor should have on the device.
std::vector<std::uint8_t> expected_bytes(const std::vector<const std::vector<float>*>& parts,
                                         bool typed, nn::NnType type) {
  std::vector<std::uint8_t> out;
  for (const auto* part : parts)
    for (const float x : *part) {
      std::uint8_t bytes[4];
      std::size_t size = 4;
      if (!typed || type == nn::NnType::f32) {
        std::memcpy(bytes, &x, 4);
      } else {
        const std::uint16_t bits =
            type == nn::NnType::bf16 ? nn::to_bf16(x).bits : nn::to_f16(x).bits;
        std::memcpy(bytes, &bits, 2);
        size = 2;
      }
      out.insert(out.end(), bytes, bytes + size);
    }
  return out;
}

}  // namespace

TEST_CASE("embed GPU weights: the streamed upload puts every tensor's bits at its pointer",
          "[gpu]") {
  REQUIRE_FALSE(seqfuse::gpu::devices().empty());
  std::mt19937 rng(20261128);
  const std::vector<float> one = random_floats(1, rng), small = random_floats(1001, rng),
                           odd_a = random_floats(3, rng), odd_b = random_floats(7, rng),
                           big = random_floats(std::size_t{20} << 20, rng),  // 80 MiB as fp32
      wide = random_floats(std::size_t{36} << 20, rng);                      // 72 MiB as bf16
  for (const nn::NnType type : {nn::NnType::f32, nn::NnType::bf16, nn::NnType::f16}) {
    INFO("compute type " << static_cast<int>(type));
    WeightPlacer placer(type);
    const float *p_one = nullptr, *p_stacked = nullptr, *p_big = nullptr;
    const void *t_small = nullptr, *t_stacked = nullptr, *t_wide = nullptr;
    placer.put(one, p_one);
    placer.put_typed(small, t_small);
    placer.put_stacked({&odd_a, &odd_b}, p_stacked);
    placer.put(big, p_big);
    placer.put_typed_stacked({&odd_b, &odd_a, &small}, t_stacked);
    placer.put_typed(wide, t_wide);
    seqfuse::gpu::Stream stream;
    const seqfuse::gpu::DeviceBuffer buffer = placer.upload("gpu:0", stream, 3);
    const auto check = [&](const void* device, const std::vector<const std::vector<float>*>& parts,
                           bool typed) {
      const std::vector<std::uint8_t> want = expected_bytes(parts, typed, type);
      std::vector<std::uint8_t> got(want.size());
      REQUIRE(device != nullptr);
      seqfuse::gpu::copy_to_host(got.data(), device, got.size(), stream);
      stream.synchronize();
      CHECK(got == want);
    };
    check(p_one, {&one}, false);
    check(t_small, {&small}, true);
    check(p_stacked, {&odd_a, &odd_b}, false);
    check(p_big, {&big}, false);
    check(t_stacked, {&odd_b, &odd_a, &small}, true);
    check(t_wide, {&wide}, true);
  }
}
