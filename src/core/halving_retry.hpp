// Sizes that shrink when the device is short: free memory is measured before
// an engine allocates, and another process sharing the GPU (8 runs started
// together, issue 20) may take it in between. An engine that can work in
// smaller pieces (more rounds, the same output) retries at half the size
// instead of failing the run.
#pragma once

#include <cstddef>
#include <utility>

#include "gpu/error.hpp"

namespace seqfuse {

// Returns make(n) for the first n of first, first / 2, first / 4, ... whose
// make does not throw gpu::OutOfMemory; once n / 2 would fall below
// `minimum`, the last OutOfMemory is rethrown. `on_retry(n)` hears each
// smaller size tried (for a trace line).
template <class Make, class OnRetry>
auto with_halving_on_oom(std::size_t first, std::size_t minimum, Make&& make, OnRetry&& on_retry) {
  std::size_t n = first;
  for (;;) {
    try {
      return make(n);
    } catch (const gpu::OutOfMemory&) {
      if (n / 2 < minimum || n / 2 == 0) throw;
      n /= 2;
      on_retry(n);
    }
  }
}

}  // namespace seqfuse
