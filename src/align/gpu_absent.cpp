// The align domain in a build without a GPU backend: no scheme goes to the
// GPU engine, and asking for it says why (cmake's seqfuse_gpu_sources picks
// this file instead of the GPU engine's).
#include "align/engine.hpp"
#include "core/gpu_status.hpp"

namespace seqfuse::align {

std::unique_ptr<AlignEngine> make_gpu_align_engine(const ScoringScheme&) {
  no_gpu_backend();
}

bool gpu_can_score(const ScoringScheme&) {
  return false;
}

}  // namespace seqfuse::align
