// T5's own gpu/nn ops on the device against host references on fresh random
// inputs: the RMS norm (against the CPU engine's rms_norm_rows, in every
// output type, the output poisoned with NaN first, row widths below, at and
// past a warp's multiple) and the gated GELU (against nn_math.hpp's
// gelu_tanh x linear side, computed in double from the very inputs the
// device got). The engine tests (test_gpu_embed_t5.cpp) run both inside the
// forward pass; these localize a failure to the op.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../unit/test_data.hpp"
#include "gpu/nn/gated_gelu.hpp"
#include "gpu/nn/nn_types.hpp"
#include "gpu/nn/rms_norm.hpp"
#include "gpu/runtime.hpp"
#include "models/cpu_t5_blocks.hpp"
#include "typed_values.hpp"

namespace gpu = seqfuse::gpu;
namespace nn = seqfuse::gpu::nn;
using seqfuse::test::make_typed;
using seqfuse::test::read_typed;
using seqfuse::test::type_name;
using seqfuse::test::Typed;

namespace {

// Relative difference allowed per output: fp32, a rounding or two apart
// from the host (another summation order); 16-bit, the output rounding
// (half an ulp, doubled for slack).
double output_epsilon(nn::NnType type) {
  return type == nn::NnType::f32 ? 0x1p-21 : type == nn::NnType::bf16 ? 0x1p-8 : 0x1p-10;
}
// Half the spacing of fp16's subnormals (below 2^-14 its steps are 2^-24, so
// a tiny output's rounding error is absolute, not relative); bf16 and fp32
// keep fp32's exponent range and need none here.
double output_floor(nn::NnType type) {
  return type == nn::NnType::f16 ? 0x1p-25 : 0.0;
}

}  // namespace

TEST_CASE("T5 RMS norm on the device equals the CPU engine's", "[gpu][t5]") {
  REQUIRE_FALSE(gpu::devices().empty());
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  gpu::Stream stream;
  for (const std::size_t hidden :
       {std::size_t{1}, std::size_t{48}, std::size_t{64}, std::size_t{97}, std::size_t{1024}})
    for (const std::size_t rows : {std::size_t{1}, std::size_t{9}, std::size_t{300}})
      for (const nn::NnType type : {nn::NnType::f32, nn::NnType::bf16, nn::NnType::f16}) {
        INFO(type_name(type) << " rows " << rows << " hidden " << hidden);
        const Typed x = make_typed(nn::NnType::f32, rows * hidden, rng, 4.0);
        const Typed weight = make_typed(nn::NnType::f32, hidden, rng, 2.0);
        std::vector<float> x_host(x.values.begin(), x.values.end());
        const std::vector<float> weight_host(weight.values.begin(), weight.values.end());
        // A zero row (T5's placeholder) must stay zero.
        std::fill_n(x_host.begin(), hidden, 0.0f);
        const double eps = 1e-6;
        std::vector<float> want(rows * hidden);
        seqfuse::models::rms_norm_rows(x_host.data(), rows, hidden, weight_host, eps, want.data());

        const std::size_t out_bytes = rows * hidden * nn::element_bytes(type);
        gpu::DeviceBuffer d_x(x_host.size() * sizeof(float)),
            d_weight(weight_host.size() * sizeof(float)), d_out(out_bytes);
        gpu::copy_to_device(d_x.data(), x_host.data(), x_host.size() * sizeof(float), stream);
        gpu::copy_to_device(d_weight.data(), weight_host.data(), weight_host.size() * sizeof(float),
                            stream);
        gpu::fill_device(d_out.data(), 0xff, out_bytes, stream);  // NaN in every type
        REQUIRE(nn::rms_norm(d_x.as<const float>(), rows, hidden, d_weight.as<const float>(), eps,
                             d_out.data(), type, stream) == gpu::Status::kSuccess);
        std::vector<std::uint8_t> got(out_bytes);
        gpu::copy_to_host(got.data(), d_out.data(), out_bytes, stream);
        stream.synchronize();
        double worst = 0;
        bool nan = false, placeholder_zero = true;
        for (std::size_t i = 0; i < rows * hidden; ++i) {
          const double device = read_typed(type, got.data() + i * nn::element_bytes(type));
          nan = nan || std::isnan(device);
          if (i < hidden) placeholder_zero = placeholder_zero && device == 0;
          // The device's double sum runs in another order than the host's:
          // an ulp of fp32 at most, then the output's rounding.
          worst = std::max(worst, std::abs(device - want[i]) /
                                      (std::abs(double(want[i])) * output_epsilon(type) +
                                       output_floor(type) + 1e-30));
        }
        CHECK_FALSE(nan);
        CHECK(placeholder_zero);
        CHECK(worst <= 1.0);
      }
}

TEST_CASE("T5 gated GELU on the device equals gelu_tanh(a) x b", "[gpu][t5]") {
  REQUIRE_FALSE(gpu::devices().empty());
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  gpu::Stream stream;
  for (const std::size_t count :
       {std::size_t{2}, std::size_t{96}, std::size_t{2 * 16384 + 2}, std::size_t{37 * 160 * 64}})
    for (const nn::NnType type : {nn::NnType::f32, nn::NnType::bf16, nn::NnType::f16}) {
      INFO(type_name(type) << " count " << count);
      const Typed a = make_typed(type, count, rng, 5.0);
      const Typed b = make_typed(type, count, rng, 3.0);
      gpu::DeviceBuffer d_a(a.bytes.size()), d_b(b.bytes.size());
      gpu::copy_to_device(d_a.data(), a.bytes.data(), a.bytes.size(), stream);
      gpu::copy_to_device(d_b.data(), b.bytes.data(), b.bytes.size(), stream);
      REQUIRE(nn::gated_gelu(d_a.data(), d_b.data(), count, type, stream) == gpu::Status::kSuccess);
      std::vector<std::uint8_t> got(a.bytes.size());
      gpu::copy_to_host(got.data(), d_a.data(), got.size(), stream);
      stream.synchronize();
      bool within = true;
      double worst = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const double v = a.values[i];
        const double want = 0.5 * v *
                            (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))) *
                            b.values[i];
        const double device = read_typed(type, got.data() + i * nn::element_bytes(type));
        // fp32 arithmetic (tanhf within a few ulp), then the output's rounding.
        const double tolerance =
            1e-5 * (1 + std::abs(want)) + std::abs(want) * output_epsilon(type);
        const double error = std::abs(device - want);
        worst = std::max(worst, error);
        if (!(error <= tolerance)) within = false;  // false for NaN
      }
      INFO("worst |device - reference| " << worst);
      CHECK(within);
    }
  CHECK(nn::gated_gelu(nullptr, nullptr, 3, nn::NnType::f32, stream) == gpu::Status::kInvalidSize);
}
