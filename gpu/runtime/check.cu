#include <string>

#include "gpu/error.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu {

void throw_gpu_error(gpuError_t err, const char* call, const char* file, int line) {
  // Clear the sticky-free error state so later calls are not blamed for it.
  (void)gpuGetLastError();
  std::string where = std::string(file);
  if (auto slash = where.rfind('/'); slash != std::string::npos) where.erase(0, slash + 1);
  std::string message = std::string(gpuGetErrorName(err)) + " (" + gpuGetErrorString(err) +
                        ") in " + call + ", " + where + ":" + std::to_string(line);
  if (err == gpuErrorMemoryAllocation) throw OutOfMemory("device out of memory: " + message);
  throw Error("GPU call failed: " + message);
}

}  // namespace seqfuse::gpu
