#include "models/pooling.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace seqfuse::models {

std::size_t pooled_rows(Pooling pooling, std::size_t tokens) noexcept {
  return pooling == Pooling::none ? tokens : 1;
}

void pool_hidden_states(Pooling pooling, const float* states, std::size_t tokens,
                        std::size_t hidden, float* out) {
  switch (pooling) {
    case Pooling::none:
      std::copy(states, states + tokens * hidden, out);
      return;
    case Pooling::bos:
      std::copy(states, states + hidden, out);
      return;
    case Pooling::mean: {
      const std::size_t residues = tokens >= 2 ? tokens - 2 : 0;
      std::vector<double> sum(hidden, 0.0);
      for (std::size_t t = 1; t <= residues; ++t) {
        const float* row = states + t * hidden;
        for (std::size_t c = 0; c < hidden; ++c) sum[c] += row[c];
      }
      for (std::size_t c = 0; c < hidden; ++c)
        out[c] = residues ? static_cast<float>(sum[c] / static_cast<double>(residues))
                          : std::numeric_limits<float>::quiet_NaN();
      return;
    }
  }
}

}  // namespace seqfuse::models
