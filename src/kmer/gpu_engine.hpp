// The GPU k-mer counting engine (gpu/kmer/), seen from src/. In a build
// without a GPU backend gpu_engine_compiled() is false and make_gpu_engine
// throws.
#pragma once

#include <memory>

#include "kmer/engine.hpp"

namespace seqfuse::kmer {

[[nodiscard]] bool gpu_engine_compiled() noexcept;
[[nodiscard]] std::unique_ptr<CountingEngine> make_gpu_engine(const EngineParams& params,
                                                              RunSink& sink);

}  // namespace seqfuse::kmer
