#include "models/embed_workers.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <thread>
#include <utility>

#include "core/error.hpp"
#include "core/report.hpp"
#include "models/embed_plan.hpp"

namespace seqfuse::models {
namespace {

// One batch of the plan: window, batch within it.
struct Task {
  std::size_t window = 0, batch = 0;
};

// What the workers and the writer share, under one mutex. Waits are stop-
// aware (a worker that failed has run_device_workers request stop) and
// abort-aware (the writer failed), so no thread waits for one that left.
class Dealer {
 public:
  Dealer(const EmbedJob& job, const ProteinSet& input, std::size_t hidden,
         const EmbedWorkers& options)
      : input_(input),
        workers_(options.devices.size()),
        choose_batch_(options.engines_choose_batch),
        in_flight_(options.windows_in_flight ? options.windows_in_flight : workers_ + 1),
        toks_per_batch_(job.toks_per_batch) {
    // The windows do not depend on the batch size: cut now, so the writer
    // knows how many to wait for.
    for (std::size_t first = 0; first < input.size();) {
      const std::size_t last = window_end(input, first, job.readout, hidden, job.window_floats);
      windows_.emplace_back().plan.first = first;
      windows_.back().plan.last = last;
      first = last;
    }
  }

  // Worker side. Waits until every worker has built its engine; false when
  // the run stops first.
  bool all_built(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    ++built_;
    changed_.notify_all();
    changed_.wait(lock, stop, [&] { return aborted_ || built_ == workers_; });
    return built_ == workers_ && !aborted_ && !stop.stop_requested();
  }

  // Each worker offers its engine's preferred batch size once all are
  // built; the last to offer fixes the size, plans every window's batches
  // and calls `ready`. Returns the batch size, or none when the run stops.
  std::optional<std::size_t> agree(std::size_t preferred, std::stop_token stop,
                                   const std::function<void()>& ready) {
    std::unique_lock lock(mutex_);
    if (choose_batch_)
      toks_per_batch_ = offered_ == 0 ? preferred : std::min(toks_per_batch_, preferred);
    if (++offered_ == workers_) {
      lock.unlock();
      for (Window& w : windows_) {
        plan_window(input_, w.plan.first, w.plan.last, toks_per_batch_, w.plan);
        w.left = w.plan.batches();
      }
      trace("embed: " + std::to_string(workers_) + " workers: every engine built, batches of " +
            std::to_string(toks_per_batch_) + " tokens planned");
      if (ready) ready();
      lock.lock();
      planned_ = true;
      changed_.notify_all();
    }
    changed_.wait(lock, stop, [&] { return aborted_ || planned_; });
    if (!planned_ || aborted_ || stop.stop_requested()) return std::nullopt;
    return toks_per_batch_;
  }

  // The next batch in plan order, waiting while its window is too far ahead
  // of the writer; false when none is left or the run stops.
  bool take(Task& task, std::stop_token stop) {
    std::unique_lock lock(mutex_);
    const auto ready = [&] {
      return aborted_ || next_.window == windows_.size() || next_.window < written_ + in_flight_;
    };
    // wait() returns at once, with the predicate's value, once stop is asked.
    if (!changed_.wait(lock, stop, ready) || stop.stop_requested() || aborted_ ||
        next_.window == windows_.size())
      return false;
    task = next_;
    Window& window = windows_[task.window];
    if (task.batch == 0) window.results.resize(window.plan.last - window.plan.first);
    if (++next_.batch == window.plan.batches()) next_ = {next_.window + 1, 0};
    return true;
  }

  // A task's results, in its batch's order; they are moved out of `out`.
  void done(const Task& task, std::span<Embedding> out) {
    std::lock_guard lock(mutex_);
    Window& window = windows_[task.window];
    const std::span<const std::size_t> batch = window.plan.batch(task.batch);
    for (std::size_t k = 0; k < batch.size(); ++k)
      window.results[batch[k] - window.plan.first] = std::move(out[k]);
    --window.left;
    embedded_ += batch.size();
    stats_.tokens += window.plan.tokens[task.batch];
    ++stats_.batches;
    changed_.notify_all();
  }

  [[nodiscard]] const WindowPlan& plan(std::size_t window) const { return windows_[window].plan; }

  // Writer side. Waits until window `w` is complete (true) or the workers
  // have all returned without it (false: one failed), calling `progress`
  // outside the lock as sequences come back.
  bool await_window(std::size_t w, const std::function<void(std::size_t)>& progress) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (progress && embedded_ != shown_) {
        shown_ = embedded_;
        lock.unlock();
        progress(shown_);  // only this thread writes shown_
        lock.lock();
        continue;
      }
      if (planned_ && windows_[w].left == 0) return true;
      if (finished_) return false;
      changed_.wait(lock);
    }
  }
  [[nodiscard]] std::span<const Embedding> results(std::size_t w) const {
    return windows_[w].results;  // complete: no worker touches it any more
  }
  // Frees window `w`'s results and lets the workers move on.
  void written(std::size_t w) {
    std::vector<Embedding> freed;
    std::lock_guard lock(mutex_);
    freed.swap(windows_[w].results);  // freed after the lock is released
    written_ = w + 1;
    stats_.sequences += windows_[w].plan.last - windows_[w].plan.first;
    changed_.notify_all();
  }
  [[nodiscard]] std::size_t windows() const noexcept { return windows_.size(); }

  // Every worker has returned.
  void finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }
  // The writer failed: workers stop at their next wait.
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }
  [[nodiscard]] EmbedStats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

 private:
  struct Window {
    WindowPlan plan;
    std::vector<Embedding> results;  // sized when its first batch is taken
    std::size_t left = 0;            // batches not done yet
  };

  const ProteinSet& input_;
  const std::size_t workers_;
  const bool choose_batch_;
  const std::size_t in_flight_;

  mutable std::mutex mutex_;
  std::condition_variable_any changed_;  // any state change: everyone rechecks
  std::vector<Window> windows_;          // never resized after the constructor
  std::size_t toks_per_batch_;
  std::size_t built_ = 0, offered_ = 0;
  bool planned_ = false, finished_ = false, aborted_ = false;
  Task next_;
  std::size_t written_ = 0;   // windows handed to the writer
  std::size_t embedded_ = 0;  // sequences back from the workers
  std::size_t shown_ = 0;     // embedded_ as last passed to progress
  EmbedStats stats_;
};

void run_worker(Dealer& dealer, const EmbedJob& job, const EmbedWorkers& options,
                const ProteinSet& input, std::stop_token stop, std::size_t worker, int device) {
  const std::string who =
      "embed: worker " + std::to_string(worker) + " (device " + std::to_string(device) + ")";
  const std::unique_ptr<EmbeddingEngine> engine = options.make_engine(worker, device);
  if (!engine) throw Error("internal: no engine for embed worker " + std::to_string(worker));
  trace(who + ": engine built");
  if (!dealer.all_built(stop)) return;
  const std::size_t preferred = options.engines_choose_batch ? engine->preferred_batch_tokens() : 0;
  const std::optional<std::size_t> toks_per_batch =
      dealer.agree(preferred, stop, options.engines_ready);
  if (!toks_per_batch) return;
  engine->reserve(input.longest, reserve_tokens(input, *toks_per_batch));

  Task task;
  std::vector<std::span<const std::int32_t>> tokens;
  std::vector<Embedding> out;
  while (dealer.take(task, stop)) {
    const std::span<const std::size_t> batch = dealer.plan(task.window).batch(task.batch);
    tokens.clear();
    for (const std::size_t i : batch) tokens.emplace_back(input.proteins[i].ids);
    out.assign(batch.size(), {});
    engine->embed(tokens, job.readout, out);
    dealer.done(task, out);
  }
  trace(who + ": done");
}

}  // namespace

EmbedStats run_embed_job_on_workers(const EmbedJob& job, const EmbedWorkers& workers,
                                    const ProteinSet& input, std::size_t hidden,
                                    EmbeddingWriter& writer) {
  if (workers.devices.empty()) throw Error("internal: an embed job with no worker");
  Dealer dealer(job, input, hidden, workers);
  const DeviceWork work = [&](std::stop_token stop, std::size_t worker, int device) {
    run_worker(dealer, job, workers, input, std::move(stop), worker, device);
  };
  std::exception_ptr failure;
  std::thread runner([&] {
    try {
      if (workers.bind)
        run_device_workers(workers.devices, work, workers.bind);
      else
        run_device_workers(workers.devices, work);
    } catch (...) {
      failure = std::current_exception();
    }
    dealer.finish();
  });

  // This thread writes, window by window in input order.
  try {
    for (std::size_t w = 0; w < dealer.windows(); ++w) {
      if (!dealer.await_window(w, job.progress)) break;
      write_window(input, dealer.plan(w).first, dealer.results(w), job.readout.pooling, writer);
      dealer.written(w);
    }
  } catch (...) {
    dealer.abort();
    runner.join();
    throw;
  }
  runner.join();
  if (failure) std::rethrow_exception(failure);
  const EmbedStats stats = dealer.stats();
  if (stats.sequences != input.size())
    throw Error("internal: embed workers returned " + std::to_string(stats.sequences) + " of " +
                std::to_string(input.size()) + " sequences");
  return stats;
}

}  // namespace seqfuse::models
