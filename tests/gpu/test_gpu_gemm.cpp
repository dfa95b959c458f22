// gpu/nn's linear-layer GEMM on the device against a float64 host reference:
// every backend (cuBLASLt, the portable tiled kernel, the tensor-core kernel
// of ours), fp32 / bf16 / fp16
// operands, fp32 or 16-bit outputs, bias, accumulation into y, and the fused
// GELU epilogue. The output is poisoned with NaN before every run. For the
// GELU epilogue the test prints how far the device is from GELU's tanh form
// and from its exact erf form, so a run records which one cuBLASLt computes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "../unit/test_data.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "gpu/nn/gemm.hpp"
#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "typed_values.hpp"

namespace gpu = seqfuse::gpu;
namespace nn = seqfuse::gpu::nn;
using seqfuse::test::make_typed;
using seqfuse::test::read_typed;
using seqfuse::test::type_name;
using seqfuse::test::Typed;

namespace {

double gelu_tanh_exact(double v) {
  return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}
double gelu_erf_exact(double v) {
  return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
}

// Relative rounding of one stored output (half an ulp, doubled for slack).
double output_epsilon(nn::NnType y_type) {
  return y_type == nn::NnType::f32 ? 0 : y_type == nn::NnType::bf16 ? 0x1p-8 : 0x1p-10;
}

struct Worst {
  double against_tanh = 0, against_erf = 0;
  bool within = true, nan = false;
  std::string error;  // the backend refused the problem (each problem runs regardless)
};

struct Problem {
  std::size_t rows, in, out;
  nn::NnType type, y_type, bias_type;
  bool accumulate;
  nn::Activation activation;
  bool with_bias = true;  // false: T5's bias-free GEMMs
};

// The GEMM of problem `p` over these device buffers (the bias left out
// where `p` has none).
nn::Linear linear_job(const Problem& p, const void* x, const void* w, const void* bias, void* y) {
  nn::Linear job;
  job.x = x;
  job.w = w;
  job.type = p.type;
  job.rows = p.rows;
  job.in = p.in;
  job.out = p.out;
  job.bias = p.with_bias ? bias : nullptr;
  job.bias_type = p.bias_type;
  job.y = y;
  job.y_type = p.y_type;
  job.accumulate = p.accumulate;
  job.activation = p.activation;
  return job;
}

Worst run_problem(const Problem& p, nn::GemmBackend backend, std::mt19937_64& rng,
                  gpu::Stream& stream) {
  // Pre-activations of a few units (std ~2): GELU's curved part and its tails.
  const double w_spread = 6.0 / std::sqrt(static_cast<double>(p.in));
  const Typed x = make_typed(p.type, p.rows * p.in, rng, 1.0);
  const Typed w = make_typed(p.type, p.out * p.in, rng, w_spread);
  const Typed bias = make_typed(p.bias_type, p.out, rng, 1.0);
  const Typed start = make_typed(nn::NnType::f32, p.rows * p.out, rng, 1.0);  // y to add to

  const std::size_t y_bytes = p.rows * p.out * nn::element_bytes(p.y_type);
  gpu::DeviceBuffer d_x(x.bytes.size()), d_w(w.bytes.size()), d_bias(bias.bytes.size()),
      d_y(y_bytes);
  gpu::copy_to_device(d_x.data(), x.bytes.data(), x.bytes.size(), stream);
  gpu::copy_to_device(d_w.data(), w.bytes.data(), w.bytes.size(), stream);
  gpu::copy_to_device(d_bias.data(), bias.bytes.data(), bias.bytes.size(), stream);
  if (p.accumulate)
    gpu::copy_to_device(d_y.data(), start.bytes.data(), y_bytes, stream);
  else
    gpu::fill_device(d_y.data(), 0xff, y_bytes, stream);  // NaN in every type

  const nn::Linear job = linear_job(p, d_x.data(), d_w.data(), d_bias.data(), d_y.data());
  Worst worst;
  // The tensor-core kernel must take every 16-bit problem here (its own
  // edges: rows, out and in past its tiles), not hand it to the tiled one.
  if (backend == nn::GemmBackend::mma && p.type != nn::NnType::f32)
    CHECK(nn::linear_mma_takes(job));
  try {
    nn::LinearGemm gemm(backend);
    const gpu::Status status = gemm.run(job, stream);  // outside REQUIRE, which catches throws
    REQUIRE(status == gpu::Status::kSuccess);
  } catch (const seqfuse::Error& e) {
    worst.error = e.what();
    worst.within = false;
    return worst;
  }
  std::vector<std::uint8_t> got(y_bytes);
  gpu::copy_to_host(got.data(), d_y.data(), y_bytes, stream);
  stream.synchronize();

  const double eps = output_epsilon(p.y_type);
  const std::size_t e = nn::element_bytes(p.y_type);
  for (std::size_t r = 0; r < p.rows; ++r)
    for (std::size_t c = 0; c < p.out; ++c) {
      double v = p.with_bias ? bias.values[c] : 0.0;
      for (std::size_t k = 0; k < p.in; ++k) v += x.values[r * p.in + k] * w.values[c * p.in + k];
      const std::size_t i = r * p.out + c;
      const double device = read_typed(p.y_type, got.data() + i * e);
      if (std::isnan(device)) {
        worst.nan = true;
        worst.within = false;
        return worst;
      }
      double want = v, erf_form = v;
      if (p.activation == nn::Activation::gelu_tanh) {
        want = gelu_tanh_exact(v);
        erf_form = gelu_erf_exact(v);
      } else if (p.activation == nn::Activation::relu) {
        want = erf_form = std::max(v, 0.0);
      }
      if (p.accumulate) {
        want += start.values[i];
        erf_form += start.values[i];
      }
      // fp32 accumulation of |terms| up to ~6 over `in` products, a tanh
      // approximation in the epilogue (cuBLASLt: ~2^-11 relative), the
      // output's rounding.
      const double tolerance = 2e-3 + std::abs(want) * eps;
      worst.against_tanh = std::max(worst.against_tanh, std::abs(device - want));
      worst.against_erf = std::max(worst.against_erf, std::abs(device - erf_form));
      if (std::abs(device - want) > tolerance) worst.within = false;
    }
  return worst;
}

}  // namespace

TEST_CASE("linear GEMM equals a float64 reference: every backend, types, bias, GELU, ReLU",
          "[gpu]") {
  REQUIRE_FALSE(gpu::devices().empty());
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  gpu::Stream stream;
  using A = nn::Activation;
  for (const nn::GemmBackend backend :
       {nn::GemmBackend::automatic, nn::GemmBackend::tiled, nn::GemmBackend::mma}) {
    const char* backend_name = backend == nn::GemmBackend::tiled ? "tiled"
                               : backend == nn::GemmBackend::mma ? "mma"
                                                                 : "vendor";
    for (const nn::NnType type : {nn::NnType::f32, nn::NnType::bf16, nn::NnType::f16}) {
      std::vector<Problem> problems;
      for (const std::size_t rows : {std::size_t{1}, std::size_t{67}, std::size_t{300}}) {
        const nn::NnType f32 = nn::NnType::f32;
        // The engine's four GEMMs (QKV; up-projection with bias and GELU, the
        // bias of the compute type; the two into the fp32 residual stream),
        // then fp32 bias with a 16-bit y, and GELU into an fp32 y.
        problems.push_back({rows, 320, 960, type, type, f32, false, A::none});
        problems.push_back({rows, 320, 1280, type, type, type, false, A::gelu_tanh});
        problems.push_back({rows, 1280, 320, type, f32, f32, true, A::none});
        problems.push_back({rows, 320, 1280, type, type, f32, false, A::none});
        problems.push_back({rows, 320, 1280, type, f32, type, false, A::gelu_tanh});
        // T5's: ReLU (its up-projection, without and with a bias), bias-free
        // GEMMs into a 16-bit y and into the fp32 residual stream.
        problems.push_back({rows, 320, 1280, type, type, f32, false, A::relu, false});
        problems.push_back({rows, 320, 1280, type, f32, type, false, A::relu});
        problems.push_back({rows, 320, 960, type, type, f32, false, A::none, false});
        problems.push_back({rows, 1280, 320, type, f32, f32, true, A::none, false});
        // Past the tensor-core kernel's 128 x 128 tiles and 32-deep slices.
        problems.push_back({rows, 72, 136, type, type, f32, false, A::gelu_tanh});
        problems.push_back({rows, 200, 264, type, f32, type, true, A::none});
      }
      problems.push_back({1000, 328, 1288, type, type, type, false, A::none});
      for (const Problem& p : problems) {
        const bool gelu = p.activation == A::gelu_tanh;
        INFO(backend_name << " " << type_name(p.type) << " -> " << type_name(p.y_type) << " (bias "
                          << type_name(p.bias_type) << "), " << p.rows << " x " << p.in << " -> "
                          << p.out << (p.accumulate ? ", accumulate" : "") << (gelu ? ", GELU" : "")
                          << (p.activation == A::relu ? ", ReLU" : "")
                          << (p.with_bias ? "" : ", no bias"));
        const Worst worst = run_problem(p, backend, rng, stream);
        INFO("worst " << worst.against_tanh << (worst.nan ? " (NaN)" : "")
                      << (worst.error.empty() ? "" : ", refused: " + worst.error));
        CHECK(worst.within);
        if (gelu && p.rows == 300 && p.y_type == nn::NnType::f32)
          std::cout << "linear GEMM " << backend_name << " " << type_name(p.type)
                    << " + GELU epilogue, fp32 out: largest |device - tanh form| "
                    << std::setprecision(3) << worst.against_tanh
                    << ", largest |device - erf form| " << worst.against_erf << "\n";
      }
    }
  }
}

TEST_CASE("linear GEMM: can_implement refuses what neither backend computes", "[gpu]") {
  nn::Linear job;
  job.type = nn::NnType::bf16;
  job.y_type = nn::NnType::bf16;
  CHECK(nn::can_implement(job));
  job.activation = nn::Activation::gelu_tanh;
  CHECK(nn::can_implement(job));
  job.y_type = nn::NnType::f16;  // y neither fp32 nor the operands' type
  CHECK_FALSE(nn::can_implement(job));
  job.y_type = nn::NnType::f32;
  job.accumulate = true;  // y += GELU(...) is not an op of ours
  CHECK_FALSE(nn::can_implement(job));
  job.activation = nn::Activation::none;
  CHECK(nn::can_implement(job));
  job.y_type = nn::NnType::bf16;  // accumulation needs an fp32 y
  CHECK_FALSE(nn::can_implement(job));
}

// Not a check: the rates of the engine's four GEMMs per layer on one
// 65,536-token batch of each ESM-2 shape, cuBLASLt against the tensor-core
// kernel of ours (the mean of 20 runs after 3 warm-ups; bf16 operands of
// bytes 0x3c, 0.0115, not zeros, which tensor cores multiply at less
// power). Run on the GPU machine with `seqfuse_tests "linear GEMM: timing*"`; it is what
// kOwnGemmLargestHidden (src/models/gpu_compute.hpp) rests on.
TEST_CASE("linear GEMM: timing on embedding-shaped batches", "[.][gpu][bench]") {
  REQUIRE_FALSE(gpu::devices().empty());
  gpu::Stream stream;
  constexpr std::size_t kRows = 65536;
  const nn::NnType bf16 = nn::NnType::bf16, f32 = nn::NnType::f32;
  for (const std::size_t hidden :
       {std::size_t{320}, std::size_t{480}, std::size_t{640}, std::size_t{1280}}) {
    const std::size_t wide = 4 * hidden;
    gpu::DeviceBuffer x(kRows * wide * 2), w(wide * wide * 2), y(kRows * wide * 4), bias(wide * 4);
    gpu::fill_device(x.data(), 0x3c, x.size(), stream);
    gpu::fill_device(w.data(), 0x3c, w.size(), stream);
    gpu::fill_device(y.data(), 0, y.size(), stream);
    gpu::fill_device(bias.data(), 0, bias.size(), stream);
    // As the engine runs them (gpu_compute.cpp's layer_gemm_shapes): QKV
    // without a bias (16-bit out), attention's output and the down-projection
    // into the fp32 residual stream, the up-projection with GELU (16-bit out).
    const Problem layer[] = {
        {kRows, hidden, 3 * hidden, bf16, bf16, f32, false, nn::Activation::none, false},
        {kRows, hidden, hidden, bf16, f32, f32, true, nn::Activation::none},
        {kRows, hidden, wide, bf16, bf16, bf16, false, nn::Activation::gelu_tanh},
        {kRows, wide, hidden, bf16, f32, f32, true, nn::Activation::none}};
    for (const nn::GemmBackend backend : {nn::GemmBackend::automatic, nn::GemmBackend::mma}) {
      nn::LinearGemm gemm(backend);
      double layer_seconds = 0, layer_flop = 0;
      for (const Problem& p : layer) {
        const nn::Linear job = linear_job(p, x.data(), w.data(), bias.data(), y.data());
        for (int i = 0; i < 3; ++i) REQUIRE(gemm.run(job, stream) == gpu::Status::kSuccess);
        stream.synchronize();
        constexpr int kRuns = 20;
        const seqfuse::Stopwatch clock;
        for (int i = 0; i < kRuns; ++i) REQUIRE(gemm.run(job, stream) == gpu::Status::kSuccess);
        stream.synchronize();
        const double seconds = clock.seconds() / kRuns;
        const double flop = 2.0 * static_cast<double>(p.rows * p.in * p.out);
        layer_seconds += seconds;
        layer_flop += flop;
        std::cout << "[gemm timing] hidden " << hidden << ", " << gemm.backend_name() << ", "
                  << p.in << " -> " << p.out << ": " << seconds * 1e3 << " ms, "
                  << flop / seconds / 1e12 << " TFLOP/s\n";
      }
      std::cout << "[gemm timing] hidden " << hidden << ", " << gemm.backend_name()
                << ", one layer's four GEMMs: " << layer_seconds * 1e3 << " ms, "
                << layer_flop / layer_seconds / 1e12 << " TFLOP/s\n";
    }
  }
}
