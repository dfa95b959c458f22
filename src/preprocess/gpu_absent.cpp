// The GPU fastq-trim engine in a build without a GPU backend (CMake
// compiles this file instead of gpu_engine.cpp): no engine, and asking for
// one is an error.
#include "core/gpu_status.hpp"
#include "preprocess/gpu_engine.hpp"

namespace seqfuse::preprocess {

bool gpu_trim_engine_compiled() noexcept {
  return false;
}

std::size_t gpu_trim_chunk_records() {
  return kCpuChunkRecords;
}

std::unique_ptr<TrimEngine> make_gpu_trim_engine(const TrimPlan&, int) {
  no_gpu_backend();
}

}  // namespace seqfuse::preprocess
