// cuBLASLt, loaded on first use with dlopen instead of linked: the library
// is over 500 MB, and loading it at start-up added ~0.1 s to every seqfuse
// command (kmer-count's whole GPU run is well under a second), and made the
// binary refuse to start on a machine with the NVIDIA driver but no CUDA
// toolkit, although only `embed` needs it. CUDA builds only.
#pragma once

#include <cublasLt.h>

namespace seqfuse::gpu::nn {

// The entry points gemm.cu calls, as the header declares them.
struct CublasLtApi {
  decltype(&::cublasLtCreate) create;
  decltype(&::cublasLtDestroy) destroy;
  decltype(&::cublasLtGetStatusName) status_name;
  decltype(&::cublasLtGetStatusString) status_string;
  decltype(&::cublasLtMatmul) matmul;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic;
  decltype(&::cublasLtMatmulDescCreate) desc_create;
  decltype(&::cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&::cublasLtMatmulDescSetAttribute) desc_set_attribute;
  decltype(&::cublasLtMatmulPreferenceCreate) preference_create;
  decltype(&::cublasLtMatmulPreferenceDestroy) preference_destroy;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) preference_set_attribute;
  decltype(&::cublasLtMatrixLayoutCreate) layout_create;
  decltype(&::cublasLtMatrixLayoutDestroy) layout_destroy;
};

// Loads libcublasLt.so.<major of the toolkit built against> once. Throws
// seqfuse::Error naming the library and dlerror()'s reason when it cannot.
[[nodiscard]] const CublasLtApi& cublaslt();

}  // namespace seqfuse::gpu::nn
