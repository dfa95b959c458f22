// A minimal fork-join loop for the CPU engines (align, kmer): workers pull
// chunks of an index range from a shared counter, so uneven work still balances.
#pragma once

#include <cstddef>
#include <functional>

#include "gpu/host_loop.hpp"

namespace seqfuse {

// Calls body(worker, begin, end) for consecutive chunks of at most `chunk`
// indices covering [0, count), on `threads` threads (the calling thread is
// worker 0; threads == 0 counts as 1). Worker ids are below `threads`. If a
// body throws, the remaining chunks are skipped and the first exception is
// rethrown here once every worker has stopped.
void parallel_chunks(
    std::size_t count, std::size_t chunk, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body);

// parallel_chunks on `threads` threads, in the form the kernel layer's host
// code takes it (gpu/host_loop.hpp).
[[nodiscard]] gpu::HostLoop host_loop(unsigned threads);

}  // namespace seqfuse
