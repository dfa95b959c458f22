#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace seqfuse {

void parallel_chunks(std::size_t count, std::size_t chunk, unsigned threads,
                     const std::function<void(unsigned, std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1U), chunks));

  std::atomic<std::size_t> next_chunk{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    try {
      while (!failed.load(std::memory_order_relaxed)) {
        const std::size_t index = next_chunk.fetch_add(1, std::memory_order_relaxed);
        if (index >= chunks) break;
        const std::size_t begin = index * chunk;
        body(worker, begin, std::min(count, begin + chunk));
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  try {
    for (unsigned worker = 1; worker < workers; ++worker) pool.emplace_back(work, worker);
  } catch (...) {  // could not start a thread: stop the ones running, then report
    failed.store(true);
    for (std::thread& thread : pool) thread.join();
    throw;
  }
  work(0);
  for (std::thread& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

gpu::HostLoop host_loop(unsigned threads) {
  return gpu::HostLoop(threads, [threads](std::size_t count, std::size_t chunk,
                                          const gpu::ChunkBody& body) {
    parallel_chunks(count, chunk, threads, body);
  });
}

}  // namespace seqfuse
