// gpu/nn LayerNorm on the device against a host reference on fresh random
// rows: add_layer_norm (with and without the residual add) and
// layer_norm_in_place (with and without the typed copy), every output type,
// the outputs poisoned with NaN first. Row widths take both kernels: whole
// 16-byte vectors up to 2,560 floats (the vector kernel, each of its
// register widths), and widths past it or not a multiple of 4 (the
// one-value-per-lane kernel). The reference is nn_math.hpp's
// layer_norm_value with statistics in double in row order; the device sums
// in another order, so fp32 outputs may differ by a rounding or two.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../unit/test_data.hpp"
#include "gpu/nn/layer_norm.hpp"
#include "gpu/nn/nn_math.hpp"
#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "typed_values.hpp"

namespace gpu = seqfuse::gpu;
namespace nn = seqfuse::gpu::nn;
using seqfuse::test::make_typed;
using seqfuse::test::read_typed;
using seqfuse::test::type_name;

namespace {

// The host reference: each row's normalized values (fp32) and the terms
// whose size bounds their rounding (|normalized x weight| + |bias|).
struct Reference {
  std::vector<float> value, scale;
};

Reference reference_layer_norm(const std::vector<float>& x, std::size_t rows, std::size_t hidden,
                               const std::vector<float>& weight, const std::vector<float>& bias,
                               double eps) {
  Reference r;
  r.value.resize(x.size());
  r.scale.resize(x.size());
  for (std::size_t row = 0; row < rows; ++row) {
    const float* v = &x[row * hidden];
    double sum = 0;
    for (std::size_t c = 0; c < hidden; ++c) sum += v[c];
    const double mean = sum / static_cast<double>(hidden);
    double squares = 0;
    for (std::size_t c = 0; c < hidden; ++c) squares += (v[c] - mean) * (v[c] - mean);
    const double inverse_std = 1.0 / std::sqrt(squares / static_cast<double>(hidden) + eps);
    for (std::size_t c = 0; c < hidden; ++c) {
      r.value[row * hidden + c] = nn::layer_norm_value(v[c], mean, inverse_std, weight[c], bias[c]);
      r.scale[row * hidden + c] =
          static_cast<float>(std::abs((v[c] - mean) * inverse_std * weight[c]) + std::abs(bias[c]));
    }
  }
  return r;
}

// Whether every device value is within a rounding of the reference: fp32
// arithmetic a rounding or two apart (relative to the terms' size), then
// the output type's own rounding.
bool within(const std::uint8_t* got, nn::NnType type, const Reference& want, double& worst) {
  const double type_epsilon = type == nn::NnType::f32    ? 0.0
                              : type == nn::NnType::bf16 ? 0x1p-8
                                                         : 0x1p-10;
  const double floor = type == nn::NnType::f16 ? 0x1p-25 : 0.0;  // fp16 subnormal steps
  bool ok = true;
  for (std::size_t i = 0; i < want.value.size(); ++i) {
    const double device = read_typed(type, got + i * nn::element_bytes(type));
    const double error = std::abs(device - want.value[i]);
    const double tolerance =
        0x1p-21 * want.scale[i] + type_epsilon * std::abs(want.value[i]) + floor + 1e-30;
    worst = std::max(worst, error / tolerance);
    if (!(error <= tolerance)) ok = false;  // false for NaN
  }
  return ok;
}

}  // namespace

TEST_CASE("LayerNorm on the device equals the host reference, both kernels", "[gpu][embed]") {
  REQUIRE_FALSE(gpu::devices().empty());
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  gpu::Stream stream;
  // 4 to 2,560: the vector kernel at widths 4 to 20 float4s a lane; 1, 2562
  // (not whole vectors) and 2564 (too wide): the other kernel.
  for (const std::size_t hidden : {1, 4, 20, 96, 320, 1024, 1280, 2560, 2562, 2564})
    for (const std::size_t rows : {1, 7, 300})
      for (const nn::NnType type : {nn::NnType::f32, nn::NnType::bf16, nn::NnType::f16})
        for (const int form : {0, 1, 2, 3}) {
          // 0: add_layer_norm, 1: with the residual add; 2: in place with a
          // typed copy, 3: in place alone.
          INFO(type_name(type) << " rows " << rows << " hidden " << hidden << " form " << form);
          const std::size_t n = rows * hidden;
          const auto values = [&](std::size_t count, double scale) {
            const auto typed = make_typed(nn::NnType::f32, count, rng, scale);
            return std::vector<float>(typed.values.begin(), typed.values.end());
          };
          std::vector<float> x = values(n, 4.0), delta = values(n, 1.0);
          const std::vector<float> weight = values(hidden, 2.0), bias = values(hidden, 1.0);
          // An offset row: the mean is far from 0, as in a residual stream.
          for (std::size_t c = 0; c < hidden; ++c) x[c] += 30.0f;
          std::vector<float> summed = x;
          if (form == 1)
            for (std::size_t i = 0; i < n; ++i) summed[i] = x[i] + delta[i];
          const double eps = 1e-5;
          const Reference want = reference_layer_norm(summed, rows, hidden, weight, bias, eps);

          const std::size_t out_bytes = n * nn::element_bytes(type);
          gpu::DeviceBuffer d_x(n * sizeof(float)), d_delta(n * sizeof(float)),
              d_weight(hidden * sizeof(float)), d_bias(hidden * sizeof(float)), d_out(out_bytes);
          gpu::copy_to_device(d_x.data(), x.data(), n * sizeof(float), stream);
          gpu::copy_to_device(d_delta.data(), delta.data(), n * sizeof(float), stream);
          gpu::copy_to_device(d_weight.data(), weight.data(), hidden * sizeof(float), stream);
          gpu::copy_to_device(d_bias.data(), bias.data(), hidden * sizeof(float), stream);
          gpu::fill_device(d_out.data(), 0xff, out_bytes, stream);  // NaN in every type
          const auto* w = d_weight.as<const float>();
          const auto* b = d_bias.as<const float>();
          gpu::Status status = gpu::Status::kSuccess;
          if (form < 2)
            status =
                nn::add_layer_norm(d_x.as<float>(), form == 1 ? d_delta.as<const float>() : nullptr,
                                   rows, hidden, w, b, eps, d_out.data(), type, stream);
          else
            status = nn::layer_norm_in_place(d_x.as<float>(), rows, hidden, w, b, eps,
                                             form == 2 ? d_out.data() : nullptr, type, stream);
          REQUIRE(status == gpu::Status::kSuccess);
          std::vector<float> residual(n);
          std::vector<std::uint8_t> out(out_bytes);
          gpu::copy_to_host(residual.data(), d_x.data(), n * sizeof(float), stream);
          gpu::copy_to_host(out.data(), d_out.data(), out_bytes, stream);
          stream.synchronize();

          double worst = 0;
          if (form < 2) {
            // The residual holds x (+ delta, the same fp32 add), the output
            // the normalized rows.
            CHECK(residual == summed);
            CHECK(within(out.data(), type, want, worst));
          } else {
            CHECK(within(reinterpret_cast<const std::uint8_t*>(residual.data()), nn::NnType::f32,
                         want, worst));
            if (form == 2) CHECK(within(out.data(), type, want, worst));
          }
          INFO("worst error / tolerance " << worst);
          CHECK(worst <= 1.0);
        }
}
