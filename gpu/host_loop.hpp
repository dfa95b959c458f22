// How the kernel layer's host-side preparation (checking and packing letters
// for an upload, planning batches) spreads over CPU threads. The caller hands
// its own loop in (src/core/parallel.hpp makes one over its threads), so the
// kernel layer owns no threads and needs nothing from src/.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>

namespace seqfuse::gpu {

// body(worker, begin, end) over consecutive chunks of at most `chunk`
// indices covering [0, count); worker ids are below workers().
using ChunkBody = std::function<void(unsigned worker, std::size_t begin, std::size_t end)>;

class HostLoop {
 public:
  using Run = std::function<void(std::size_t count, std::size_t chunk, const ChunkBody& body)>;

  HostLoop() = default;  // the caller's thread alone
  HostLoop(unsigned workers, Run run) : workers_(workers ? workers : 1), run_(std::move(run)) {}

  [[nodiscard]] unsigned workers() const noexcept { return workers_; }
  void operator()(std::size_t count, std::size_t chunk, const ChunkBody& body) const {
    if (run_) return run_(count, chunk, body);
    if (chunk == 0) chunk = 1;
    for (std::size_t begin = 0; begin < count; begin += chunk)
      body(0, begin, begin + chunk < count ? begin + chunk : count);
  }

 private:
  unsigned workers_ = 1;
  Run run_;
};

// body(row, begin, end) over every row of `rows` rows of `length` entries,
// each cut into pieces of at most `piece` entries, on the workers of `loop`:
// so that a few long rows (a launch of 7 queries against 1.2 M targets)
// still spread over every worker.
template <class Body>
void for_each_row_piece(const HostLoop& loop, std::size_t rows, std::size_t length,
                        std::size_t piece, Body&& body) {
  const std::size_t pieces = length == 0 ? 0 : (length + piece - 1) / piece;
  loop(rows * pieces, 1, [&](unsigned, std::size_t first, std::size_t last) {
    for (std::size_t k = first; k < last; ++k) {
      const std::size_t begin = (k % pieces) * piece;
      body(k / pieces, begin, begin + piece < length ? begin + piece : length);
    }
  });
}

}  // namespace seqfuse::gpu
