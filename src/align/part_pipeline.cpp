#include "align/part_pipeline.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace seqfuse::align {
namespace {

// What every part's thread has reached, under one lock.
class Progress {
 public:
  explicit Progress(std::size_t parts)
      : built_(parts, false), released_(parts, false), kept_(parts, 0) {}

  // Waits for `ready` (checked under the lock); false if the run failed or
  // stopped meanwhile.
  template <class Ready>
  bool wait(Ready ready) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return ended_ || ready(); });
    return !ended_;
  }
  bool built(std::size_t p) const { return built_[p]; }
  bool released(std::size_t p) const { return released_[p]; }
  std::size_t kept(std::size_t p) const { return kept_[p]; }

  void set_built(std::size_t p) {
    update([&] { built_[p] = true; });
  }
  void set_kept(std::size_t p, std::size_t chunks) {
    update([&] { kept_[p] = chunks; });
  }
  void set_released(std::size_t p) {
    update([&] { released_[p] = true; });
  }
  // The first failure is kept; every waiting thread gives up.
  void fail(std::exception_ptr error) {
    update([&] {
      if (!error_) error_ = std::move(error);
      ended_ = true;
    });
  }
  void stop() {
    update([&] { ended_ = true; });
  }
  [[nodiscard]] std::exception_ptr error() const { return error_; }

 private:
  template <class Change>
  void update(Change change) {
    {
      const std::lock_guard lock(mutex_);
      change();
    }
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> built_, released_;
  std::vector<std::size_t> kept_;  // chunks kept so far, by part
  bool ended_ = false;
  std::exception_ptr error_;
};

void run_part(std::size_t p, std::size_t chunks, const PartSteps& steps, Progress& progress) {
  steps.build(p);
  progress.set_built(p);
  for (std::size_t c = 0; c < chunks; ++c) {
    if (steps.stopping && steps.stopping()) {
      progress.stop();
      break;
    }
    steps.score(p, c);
    if (p > 0 && !progress.wait([&] { return progress.kept(p - 1) > c; })) break;
    steps.keep(p, c);
    progress.set_kept(p, c + 1);
  }
  steps.release(p);
  progress.set_released(p);
}

}  // namespace

void run_part_pipeline(std::size_t parts, std::size_t chunks, const PartSteps& steps) {
  Progress progress(parts);
  std::vector<std::jthread> threads;
  threads.reserve(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    // Part p starts once part p - 1 is built (one upload at a time) and
    // part p - 2 is released (two parts on the device).
    if (!progress.wait([&] {
          return (p == 0 || progress.built(p - 1)) && (p < 2 || progress.released(p - 2));
        }))
      break;
    threads.emplace_back([p, chunks, &steps, &progress] {
      try {
        run_part(p, chunks, steps, progress);
      } catch (...) {
        progress.fail(std::current_exception());
      }
    });
  }
  threads.clear();  // joins every part's thread
  if (progress.error()) std::rethrow_exception(progress.error());
}

}  // namespace seqfuse::align
