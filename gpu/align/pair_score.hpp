// The record every alignment score kernel writes per pair (the search
// kernels, the pairs kernel), in its own header so that host code choosing
// hits (src/align/top_hits.hpp) needs nothing else of the kernel layer.
#pragma once

#include <cstdint>

namespace seqfuse::gpu {

// Score and end cell (0-based). For local alignment the end is the first cell
// reaching the best score in column-major order (smallest target position,
// then smallest query position); (0, 0) when the best score is 0 and
// (-1, -1) when a sequence is empty, as Parasail reports them.
struct PairScore {
  std::int32_t score = 0;
  std::int32_t query_end = -1;
  std::int32_t target_end = -1;
};

}  // namespace seqfuse::gpu
