#include "gpu/vendor.cuh"

#if SEQFUSE_VENDOR_CUDA
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "gpu/error.hpp"
#include "gpu/nn/cublaslt_api.hpp"

namespace seqfuse::gpu::nn {
namespace {

// CUBLAS_VER_MAJOR is the toolkit's; the soname carries the same major.
const std::string kLibrary = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);

template <typename Function>
void bind(void* library, const char* symbol, Function& out) {
  void* address = dlsym(library, symbol);
  if (address == nullptr)
    throw Error(kLibrary + " lacks " + symbol + ": a cuBLASLt " + std::to_string(CUBLAS_VER_MAJOR) +
                ".x is needed");
  out = reinterpret_cast<Function>(address);
}

CublasLtApi load() {
  // Never closed: the handles and plans made through it live to the end.
  void* library = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    throw Error("cannot load " + kLibrary +
                " (cuBLASLt, for the GPU GEMMs): " + (reason ? reason : "unknown reason") +
                "; add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH");
  }
  CublasLtApi api{};
  bind(library, "cublasLtCreate", api.create);
  bind(library, "cublasLtDestroy", api.destroy);
  bind(library, "cublasLtGetStatusName", api.status_name);
  bind(library, "cublasLtGetStatusString", api.status_string);
  bind(library, "cublasLtMatmul", api.matmul);
  bind(library, "cublasLtMatmulAlgoGetHeuristic", api.algo_get_heuristic);
  bind(library, "cublasLtMatmulDescCreate", api.desc_create);
  bind(library, "cublasLtMatmulDescDestroy", api.desc_destroy);
  bind(library, "cublasLtMatmulDescSetAttribute", api.desc_set_attribute);
  bind(library, "cublasLtMatmulPreferenceCreate", api.preference_create);
  bind(library, "cublasLtMatmulPreferenceDestroy", api.preference_destroy);
  bind(library, "cublasLtMatmulPreferenceSetAttribute", api.preference_set_attribute);
  bind(library, "cublasLtMatrixLayoutCreate", api.layout_create);
  bind(library, "cublasLtMatrixLayoutDestroy", api.layout_destroy);
  return api;
}

}  // namespace

const CublasLtApi& cublaslt() {
  // A failed load throws and is tried again by the next caller.
  static std::mutex mutex;
  static bool loaded = false;
  static CublasLtApi api{};
  std::lock_guard lock(mutex);
  if (!loaded) {
    api = load();
    loaded = true;
  }
  return api;
}

}  // namespace seqfuse::gpu::nn

#endif
