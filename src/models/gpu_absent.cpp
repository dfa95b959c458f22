// The GPU engine's factories in a build without a GPU backend: the one
// no-GPU stub of the embed domain (src/models/CMakeLists.txt compiles this
// file instead of gpu_engine.cpp and the gpu_*.cpp parts).
#include "core/gpu_status.hpp"
#include "models/gpu_engine.hpp"

namespace seqfuse::models {

bool gpu_engine_built() noexcept {
  return false;
}

// Nothing to ready: no engine can be made.
void warm_up_gpu_engine(const std::string&, int, ComputeType) noexcept {}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const EsmModel&, const GpuEngineOptions&) {
  no_gpu_backend();
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const BertModel&, const GpuEngineOptions&) {
  no_gpu_backend();
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const T5Model&, const GpuEngineOptions&) {
  no_gpu_backend();
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const ProteinModel&, const GpuEngineOptions&) {
  no_gpu_backend();
}

}  // namespace seqfuse::models
