// LinearGemm: cuBLASLt on CUDA, the tiled kernel (gemm_tiled.cu) on HIP, or
// the tensor-core kernel of ours (gemm_mma.cu) where asked.
// The cuBLASLt part is the one place in gpu/nn that names the vendor
// library; it compiles only when vendor.cuh picked CUDA.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>

#include "gpu/vendor.cuh"
#include "gpu/error.hpp"
#include "gpu/trace.hpp"
#include "gpu/nn/gemm.hpp"
#include "gpu/nn/launch.cuh"

#if SEQFUSE_VENDOR_CUDA
#include "gpu/nn/cublaslt_api.hpp"
#endif

namespace seqfuse::gpu::nn {

#if SEQFUSE_VENDOR_CUDA
namespace {

// cuBLASLt's recommended workspace on Hopper.
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
// Batches differ in token count, so plans are per shape; a long run with
// many distinct counts starts the cache over rather than grow it forever.
constexpr std::size_t kMaxPlans = 512;

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLASLt ") + call + " failed: " + cublaslt().status_name(status) +
                " (" + cublaslt().status_string(status) + ")");
}

cudaDataType_t lt_type(NnType type) {
  switch (type) {
    case NnType::bf16:
      return CUDA_R_16BF;
    case NnType::f16:
      return CUDA_R_16F;
    case NnType::f32:
      break;
  }
  return CUDA_R_32F;
}

bool aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kGemmAlignment == 0;
}

// One shape's descriptors and the algorithm cuBLASLt's heuristic chose.
// Column-major view of the row-major product: y^T [out x rows] = op_T(w)
// [out x in] . x^T [in x rows], so the bias (length out) runs along D's rows,
// as CUBLASLT_EPILOGUE_BIAS wants.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool usable = false;  // false: no algorithm offered; the tiled kernel runs instead
  bool ran = false;     // SEQFUSE_TRACE marks each plan's first matmul

  // Descriptors for `job`'s shape (no algorithm yet).
  explicit Plan(const Linear& job) {
    const cudaDataType_t type = lt_type(job.type);
    check_lt(cublaslt().desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
             "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    check_lt(cublaslt().desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                           sizeof transpose),
             "set TRANSA");
    check_lt(cublaslt().desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep),
             "set TRANSB");
    if (job.bias || job.activation != Activation::none) {
      cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      if (job.activation == Activation::gelu_tanh)
        epilogue = job.bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
      else if (job.activation == Activation::relu)
        epilogue = job.bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
      check_lt(cublaslt().desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                             sizeof epilogue),
               "set EPILOGUE");
    }
    if (job.bias) {
      const cudaDataType_t bias_type = lt_type(job.bias_type);
      check_lt(cublaslt().desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                             sizeof bias_type),
               "set BIAS_DATA_TYPE");
    }
    const auto in = static_cast<std::uint64_t>(job.in);
    const auto out = static_cast<std::uint64_t>(job.out);
    const auto rows = static_cast<std::uint64_t>(job.rows);
    check_lt(cublaslt().layout_create(&a, type, in, out, static_cast<std::int64_t>(in)),
             "layout A");
    check_lt(cublaslt().layout_create(&b, type, in, rows, static_cast<std::int64_t>(in)),
             "layout B");
    check_lt(cublaslt().layout_create(&d, lt_type(job.y_type), out, rows,
                                      static_cast<std::int64_t>(out)),
             "layout D");
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (d) cublaslt().layout_destroy(d);
    if (b) cublaslt().layout_destroy(b);
    if (a) cublaslt().layout_destroy(a);
    if (desc) cublaslt().desc_destroy(desc);
  }
};

// A GEMM family: everything but the row count.
using FamilyKey = std::tuple<std::size_t, std::size_t, int, int, bool, int, int>;
using PlanKey = std::pair<std::size_t, FamilyKey>;  // rows, family

FamilyKey family_of(const Linear& job) {
  return {job.in,
          job.out,
          static_cast<int>(job.type),
          static_cast<int>(job.y_type),
          job.bias != nullptr,
          static_cast<int>(job.bias_type),
          static_cast<int>(job.activation)};
}

// Process-wide: a cuBLASLt handle per device (a handle belongs to the device
// current when it was made; embed's --device gpu:0,1 runs engines on several)
// and the algorithm chosen per GEMM family, shared by every device, so all
// devices of a run compute each GEMM alike.
// The first heuristic queries of a process are slow (~0.1 s each on an H100:
// cuBLASLt loads candidate kernels), and batches differ in row count, so an
// algorithm is chosen once per family, by warm_up_gemms() on a thread of its
// own while the caller loads other things, or by the first GEMM of the
// family, and then serves every row count. The mutex is held through a
// warm-up, so a GEMM that needs an algorithm waits for it.
struct SharedGemmState {
  std::mutex mutex;
  std::map<int, cublasLtHandle_t> handles;                                // by device
  std::map<FamilyKey, std::pair<cublasLtMatmulAlgo_t, bool>> algorithms;  // algo, usable

  static SharedGemmState& get() {
    static SharedGemmState state;  // its handles are never destroyed: plans use them to the end
    return state;
  }
  // The calling thread's current device's handle. Callers hold the mutex.
  cublasLtHandle_t handle_locked() {
    int device = 0;
    GPU_CHECK(gpuGetDevice(&device));
    cublasLtHandle_t& handle = handles[device];
    if (!handle) check_lt(cublaslt().create(&handle), "cublasLtCreate");
    return handle;
  }
  // The heuristic's first choice for exactly `plan`'s shape.
  std::pair<cublasLtMatmulAlgo_t, bool> heuristic_locked(const Plan& plan) {
    cublasLtMatmulPreference_t preference = nullptr;
    check_lt(cublaslt().preference_create(&preference), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t workspace_bytes = kWorkspaceBytes;
    cublasStatus_t status =
        cublaslt().preference_set_attribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                            &workspace_bytes, sizeof workspace_bytes);
    cublasLtMatmulHeuristicResult_t result{};
    int found_count = 0;
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublaslt().algo_get_heuristic(handle_locked(), plan.desc, plan.a, plan.b, plan.d,
                                             plan.d, preference, 1, &result, &found_count);
    cublaslt().preference_destroy(preference);
    // Not supported, or a combination this cuBLASLt rejects (it answers
    // INVALID_VALUE for a 16-bit bias with an fp32 y and GELU): no algorithm.
    if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED &&
        status != CUBLAS_STATUS_INVALID_VALUE)
      check_lt(status, "cublasLtMatmulAlgoGetHeuristic");
    return {result.algo, status == CUBLAS_STATUS_SUCCESS && found_count > 0};
  }
  // The family's algorithm, chosen now if it has none yet.
  void choose_locked(const Linear& job, Plan& plan) {
    const FamilyKey family = family_of(job);
    auto found = algorithms.find(family);
    if (found == algorithms.end()) {
      found = algorithms.emplace(family, heuristic_locked(plan)).first;
      trace(std::string(found->second.second ? "gemm: algorithm chosen for "
                                             : "gemm: no cuBLASLt algorithm (tiled kernel) for ") +
            std::to_string(job.in) + " -> " + std::to_string(job.out) +
            (job.bias ? " + bias" : "") +
            (job.activation == Activation::gelu_tanh ? " + GELU"
             : job.activation == Activation::relu    ? " + ReLU"
                                                     : ""));
    }
    plan.algo = found->second.first;
    plan.usable = found->second.second;
  }
};

}  // namespace

void warm_up_gemms(std::span<const Linear> shapes) {
  {
    SharedGemmState& shared = SharedGemmState::get();
    std::lock_guard lock(shared.mutex);
    // Marks for the run's fixed cost (issue 21): what the library's load,
    // its handle and the first heuristic queries each take.
    (void)cublaslt();
    trace("gemm: cuBLASLt loaded");
    (void)shared.handle_locked();
    trace("gemm: cuBLASLt handle made");
    for (const Linear& shape : shapes) {
      Plan plan(shape);
      shared.choose_locked(shape, plan);
    }
  }
  // One run per shape, so each chosen kernel is loaded (lazy module loading)
  // before the caller's first batch: a few rows of zeros, the family's
  // algorithm (rows do not change it).
  constexpr std::size_t kRows = 256;
  std::size_t x_bytes = 0, w_bytes = 0, y_bytes = 0, bias_bytes = 0;
  for (const Linear& s : shapes) {
    x_bytes = std::max(x_bytes, kRows * s.in * element_bytes(s.type));
    w_bytes = std::max(w_bytes, s.out * s.in * element_bytes(s.type));
    y_bytes = std::max(y_bytes, kRows * s.out * element_bytes(s.y_type));
    bias_bytes = std::max(bias_bytes, s.out * element_bytes(s.bias_type));
  }
  Stream stream;
  DeviceBuffer x(x_bytes), w(w_bytes), y(y_bytes), bias(bias_bytes);
  fill_device(x.data(), 0, x_bytes, stream);
  fill_device(w.data(), 0, w_bytes, stream);
  fill_device(y.data(), 0, y_bytes, stream);
  fill_device(bias.data(), 0, bias_bytes, stream);
  LinearGemm gemm(GemmBackend::automatic);
  for (Linear job : shapes) {
    job.rows = kRows;
    job.x = x.data();
    job.w = w.data();
    job.y = y.data();
    if (job.bias) job.bias = bias.data();
    if (gemm.run(job, stream) != Status::kSuccess)
      throw Error("GEMM warm-up: a shape the GEMM refuses");
  }
  stream.synchronize();
  trace("gemm: warm-up GEMMs run");
}

struct LinearGemm::Impl {
  GemmBackend backend;
  cublasLtHandle_t handle = nullptr;
  DeviceBuffer workspace;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;

  // The device's shared handle is fetched by the first GEMM (plan_for), so making an
  // engine does not wait for a warm-up that holds the shared state.
  explicit Impl(GemmBackend b) : backend(b) {
    if (backend != GemmBackend::automatic) return;  // no vendor library, no workspace
    workspace = DeviceBuffer(kWorkspaceBytes);
  }

  Plan& plan_for(const Linear& job) {
    const PlanKey key{job.rows, family_of(job)};
    auto found = plans.find(key);
    if (found != plans.end()) return *found->second;
    if (plans.size() >= kMaxPlans) plans.clear();
    auto plan = std::make_unique<Plan>(job);
    {
      SharedGemmState& shared = SharedGemmState::get();
      std::lock_guard lock(shared.mutex);
      handle = shared.handle_locked();
      shared.choose_locked(job, *plan);
    }
    Plan& made = *plan;
    plans.emplace(key, std::move(plan));
    return made;
  }

  Status run(const Linear& job, Stream& stream) {
    if (backend == GemmBackend::mma) {  // linear_mma refuses what it does not take
      const Status status = linear_mma(job, stream);
      return status == Status::kInvalidArgument ? linear_tiled(job, stream) : status;
    }
    if (backend == GemmBackend::tiled || !aligned(job.x) || !aligned(job.w) || !aligned(job.y) ||
        (job.bias && !aligned(job.bias)))
      return linear_tiled(job, stream);
    Plan& plan = plan_for(job);
    if (!plan.usable) return linear_tiled(job, stream);
    const bool first_run = !plan.ran;
    plan.ran = true;
    if (job.bias)
      check_lt(cublaslt().desc_set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                             &job.bias, sizeof job.bias),
               "set BIAS_POINTER");
    const auto matmul = [&] {
      const float alpha = 1.0f, beta = job.accumulate ? 1.0f : 0.0f;  // C is y (in place)
      return cublaslt().matmul(handle, plan.desc, &alpha, job.w, plan.a, job.x, plan.b, &beta,
                               job.y, plan.d, job.y, plan.d, &plan.algo, workspace.data(),
                               workspace.size(), native_stream(stream));
    };
    cublasStatus_t status = matmul();
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE) {
      // The family's algorithm does not take this row count: ask for this shape.
      SharedGemmState& shared = SharedGemmState::get();
      std::lock_guard lock(shared.mutex);
      std::tie(plan.algo, plan.usable) = shared.heuristic_locked(plan);
      if (!plan.usable) return linear_tiled(job, stream);
      status = matmul();
    }
    check_lt(status, "cublasLtMatmul");
    if (first_run) trace("gemm: first matmul of " + std::to_string(job.rows) + " rows queued");
    return Status::kSuccess;
  }

  [[nodiscard]] std::string name() const {
    switch (backend) {
      case GemmBackend::tiled:
        return "tiled";
      case GemmBackend::mma:
        return "mma";
      case GemmBackend::automatic:
        break;
    }
    return "cuBLASLt";
  }
};

#else  // HIP: no vendor BLAS in Debian 12; the tiled kernel does every GEMM.

void warm_up_gemms(std::span<const Linear>) {}

struct LinearGemm::Impl {
  explicit Impl(GemmBackend) {}
  Status run(const Linear& job, Stream& stream) { return linear_tiled(job, stream); }
  [[nodiscard]] std::string name() const { return "tiled"; }
};

#endif

bool can_implement(const Linear& job) {
  if (job.y_type != NnType::f32 && job.y_type != job.type) return false;
  if (job.accumulate && job.y_type != NnType::f32) return false;
  if (job.bias_type != NnType::f32 && job.bias_type != job.type) return false;
  return !(job.accumulate && job.activation != Activation::none);
}

LinearGemm::LinearGemm(GemmBackend backend) : impl_(std::make_unique<Impl>(backend)) {}
LinearGemm::~LinearGemm() = default;

Status LinearGemm::run(const Linear& job, Stream& stream) {
  if (job.rows == 0 || job.out == 0) return Status::kSuccess;
  if (job.in == 0) return Status::kInvalidSize;
  if (!job.x || !job.w || !job.y) return Status::kNullBuffer;
  if (!can_implement(job)) return Status::kInvalidArgument;
  return impl_->run(job, stream);
}

std::string LinearGemm::backend_name() const {
  return impl_->name();
}

}  // namespace seqfuse::gpu::nn
