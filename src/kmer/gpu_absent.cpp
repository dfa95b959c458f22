// The GPU k-mer engine in a build without a GPU backend (CMake compiles this
// file instead of gpu_engine.cpp): no engine, and asking for one is an error.
#include "core/gpu_status.hpp"
#include "kmer/gpu_engine.hpp"

namespace seqfuse::kmer {

bool gpu_engine_compiled() noexcept {
  return false;
}

std::unique_ptr<CountingEngine> make_gpu_engine(const EngineParams&, RunSink&) {
  no_gpu_backend();
}

}  // namespace seqfuse::kmer
