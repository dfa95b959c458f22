#include "align/device_split.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "core/error.hpp"

namespace seqfuse::align {
namespace {

std::vector<TargetRange> ranges_of(const std::vector<std::size_t>& bounds) {
  std::vector<TargetRange> ranges;
  for (std::size_t p = 0; p + 1 < bounds.size(); ++p)
    ranges.push_back(
        {static_cast<std::uint32_t>(bounds[p]), static_cast<std::uint32_t>(bounds[p + 1])});
  return ranges;
}

void require_in_order(std::span<const AlignHit> hits, std::size_t worker) {
  for (std::size_t k = 1; k < hits.size(); ++k) {
    const AlignHit& a = hits[k - 1];
    const AlignHit& b = hits[k];
    if (b.query < a.query || (b.query == a.query && !hit_before(a, b)))
      throw Error("internal: GPU worker " + std::to_string(worker) + "'s hits of query " +
                  std::to_string(b.query) + " are out of order");
  }
}

// The hand-over between the workers and the writing thread: a ring of
// kChunksAhead slots, chunk c in slot c % kChunksAhead, each holding every
// worker's hits of that chunk until the writer takes them.
class Exchange final : public ChunkExchange {
 public:
  explicit Exchange(std::size_t workers)
      : workers_(workers), published_(workers, 0), slots_(kChunksAhead) {
    for (Slot& slot : slots_) slot.hits.resize(workers);
  }

  bool publish(std::size_t worker, std::size_t chunk, std::vector<AlignHit>& hits) override {
    std::unique_lock lock(mutex_);
    if (worker >= workers_ || published_[worker] != chunk)
      throw Error("internal: GPU worker " + std::to_string(worker) + " published chunk " +
                  std::to_string(chunk) + " out of turn");
    changed_.wait(lock, [&] { return stop_ || chunk < taken_ + kChunksAhead; });
    if (stop_) return false;
    Slot& slot = slots_[chunk % kChunksAhead];
    slot.hits[worker] = std::move(hits);
    hits.clear();
    ++slot.ready;
    ++published_[worker];
    changed_.notify_all();
    return true;
  }

  bool stopping() const override {
    const std::lock_guard lock(mutex_);
    return stop_;
  }

  // The writer's side: every worker's hits of `chunk` (the next one), or
  // false once the run stops or the workers are gone before publishing it.
  bool take(std::size_t chunk, std::vector<std::vector<AlignHit>>& per_worker) {
    std::unique_lock lock(mutex_);
    Slot& slot = slots_[chunk % kChunksAhead];
    changed_.wait(lock, [&] { return slot.ready == workers_ || stop_ || finished_; });
    if (slot.ready != workers_ || stop_) return false;
    per_worker.resize(workers_);
    for (std::size_t w = 0; w < workers_; ++w) per_worker[w] = std::move(slot.hits[w]);
    slot.ready = 0;
    taken_ = chunk + 1;
    changed_.notify_all();
    return true;
  }

  // After a worker returned without an error: one that published less than
  // every chunk (and was not told to stop) would leave the others waiting
  // for the writer, and the writer for it.
  void require_all_published(std::size_t worker, std::size_t chunks) {
    const std::lock_guard lock(mutex_);
    if (stop_ || published_[worker] == chunks) return;
    stop_ = true;
    changed_.notify_all();
    throw Error("internal: GPU worker " + std::to_string(worker) + " stopped after " +
                std::to_string(published_[worker]) + " of " + std::to_string(chunks) +
                " chunks of queries");
  }

  void stop() {
    const std::lock_guard lock(mutex_);
    stop_ = true;
    changed_.notify_all();
  }

  void finish() {
    const std::lock_guard lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }

 private:
  struct Slot {
    std::vector<std::vector<AlignHit>> hits;  // per worker
    std::size_t ready = 0;                    // workers that published into it
  };
  const std::size_t workers_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::size_t> published_;  // per worker: chunks published
  std::vector<Slot> slots_;
  std::size_t taken_ = 0;  // chunks the writer has taken
  bool stop_ = false;
  bool finished_ = false;  // every worker has returned
};

}  // namespace

std::vector<TargetRange> split_targets_by_residues(std::span<const std::uint64_t> offsets,
                                                   std::size_t workers) {
  const std::size_t count = offsets.empty() ? 0 : offsets.size() - 1;
  std::vector<std::uint64_t> weights(count);
  for (std::size_t k = 0; k < count; ++k) weights[k] = offsets[k + 1] - offsets[k] + 1;
  return ranges_of(split_by_weight(weights, workers));
}

std::vector<TargetRange> split_pairs_by_cells(std::span<const Codes> queries,
                                              std::span<const Codes> targets, std::size_t workers) {
  if (queries.size() != targets.size())
    throw Error("internal: pairs need as many targets as queries");
  std::vector<std::uint64_t> weights(queries.size());
  for (std::size_t k = 0; k < weights.size(); ++k)
    weights[k] = std::uint64_t{queries[k].size()} * targets[k].size() + 1;
  return ranges_of(split_by_weight(weights, workers));
}

std::vector<TargetRange> plan_range_parts(std::span<const std::uint64_t> offsets, TargetRange range,
                                          std::uint64_t max_residues) {
  if (range.size() == 0) return {};
  std::vector<TargetRange> parts =
      plan_target_parts(offsets.subspan(range.begin, range.size() + 1), max_residues);
  for (TargetRange& part : parts) {
    part.begin += range.begin;
    part.end += range.begin;
  }
  return parts;
}

void merge_worker_hits(std::span<std::vector<AlignHit>> per_worker, std::size_t top,
                       std::vector<AlignHit>& out) {
  out.clear();
  std::size_t total = 0;
  for (std::size_t w = 0; w < per_worker.size(); ++w) {
    require_in_order(per_worker[w], w);
    total += per_worker[w].size();
  }
  out.reserve(total);
  std::vector<std::size_t> at(per_worker.size(), 0);
  const auto head_of = [&](std::size_t w) -> const AlignHit* {
    return at[w] < per_worker[w].size() ? &per_worker[w][at[w]] : nullptr;
  };
  for (;;) {
    // The next query any worker holds hits of.
    std::uint32_t query = std::numeric_limits<std::uint32_t>::max();
    bool any = false;
    for (std::size_t w = 0; w < per_worker.size(); ++w)
      if (const AlignHit* head = head_of(w)) {
        query = std::min(query, head->query);
        any = true;
      }
    if (!any) break;
    // Its hits, best first: a strictly better head replaces the pick, so
    // equal hits go to the earlier worker, whose targets come first.
    for (std::size_t taken = 0; top == 0 || taken < top; ++taken) {
      std::size_t best = per_worker.size();
      for (std::size_t w = 0; w < per_worker.size(); ++w) {
        const AlignHit* head = head_of(w);
        if (head == nullptr || head->query != query) continue;
        if (best == per_worker.size() || hit_before(*head, per_worker[best][at[best]])) best = w;
      }
      if (best == per_worker.size()) break;
      out.push_back(std::move(per_worker[best][at[best]++]));
    }
    for (std::size_t w = 0; w < per_worker.size(); ++w)
      while (head_of(w) != nullptr && head_of(w)->query == query) ++at[w];
  }
}

void run_merged_chunks(const std::vector<int>& devices, std::size_t chunks, std::size_t top,
                       const ChunkWork& work, const ConsumeChunk& consume, const BindDevice& bind) {
  Exchange exchange(devices.size());
  std::exception_ptr worker_error;
  std::jthread workers([&] {
    try {
      run_device_workers(
          devices,
          [&](std::stop_token, std::size_t worker, int device) {
            try {
              work(worker, device, exchange);
              exchange.require_all_published(worker, chunks);
            } catch (...) {
              exchange.stop();  // wakes the others waiting to publish, and the writer
              throw;
            }
          },
          [&](int device) {
            try {
              bind(device);
            } catch (...) {
              exchange.stop();  // a device that cannot be used stops the run as a failure does
              throw;
            }
          });
    } catch (...) {
      worker_error = std::current_exception();
    }
    exchange.finish();
  });
  std::size_t written = 0;
  try {
    std::vector<std::vector<AlignHit>> per_worker;
    std::vector<AlignHit> merged;
    for (; written < chunks; ++written) {
      if (!exchange.take(written, per_worker)) break;
      merge_worker_hits(per_worker, top, merged);
      consume(written, merged);
    }
  } catch (...) {
    exchange.stop();
    workers.join();
    throw;
  }
  workers.join();
  if (worker_error) std::rethrow_exception(worker_error);
  if (written != chunks)
    throw Error("internal: the GPU workers stopped after " + std::to_string(written) + " of " +
                std::to_string(chunks) + " chunks of queries");
}

}  // namespace seqfuse::align
