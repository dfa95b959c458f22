// The GPU k-mer counting engine (gpu/kmer/), seen from src/: plain C++, no
// CUDA types. Defined in gpu_engine.cpp with a GPU backend; without one,
// gpu_absent.cpp stands in: gpu_engine_compiled() is false and
// make_gpu_engine throws (seqfuse::no_gpu_backend()).
#pragma once

#include <memory>

#include "kmer/engine.hpp"

namespace seqfuse::kmer {

[[nodiscard]] bool gpu_engine_compiled() noexcept;
[[nodiscard]] std::unique_ptr<CountingEngine> make_gpu_engine(const EngineParams& params,
                                                              RunSink& sink);

}  // namespace seqfuse::kmer
