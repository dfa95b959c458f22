#include "core/gpu_status.hpp"

#include <string>

#include "core/error.hpp"

namespace seqfuse {

void require_gpu_success(gpu::Status status, std::string_view op) {
  if (status != gpu::Status::kSuccess)
    throw Error(std::string(op) + " refused its input: " + gpu::to_string(status));
}

void no_gpu_backend() {
  throw Error("this seqfuse was built without a GPU backend (CUDA or HIP)");
}

}  // namespace seqfuse
