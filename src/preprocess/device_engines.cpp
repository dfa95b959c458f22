#include "preprocess/device_engines.hpp"

#include <cstddef>
#include <mutex>
#include <utility>

#include "core/error.hpp"

namespace seqfuse::preprocess {
namespace {

class DealingTrimEngine final : public TrimEngine {
 public:
  DealingTrimEngine(std::vector<std::unique_ptr<TrimEngine>> engines, std::string name)
      : engines_(std::move(engines)), in_flight_(engines_.size(), 0), name_(std::move(name)) {
    if (engines_.empty()) throw Error("internal: no engine to deal fastq-trim chunks to");
  }

  [[nodiscard]] std::string name() const override { return name_; }

  // The chunk's output goes to `out`, the caller's slot for it: which engine
  // trims it changes nothing in the bytes or their place. The counts go to
  // the caller's tally, a sum over chunks whichever engine adds to it.
  void trim(ReadChunk& reads, ReadChunk* mates, ChunkOutput& out, TrimTally& tally) override {
    const std::size_t chosen = take();
    try {
      engines_[chosen]->trim(reads, mates, out, tally);
    } catch (...) {
      give_back(chosen);
      throw;
    }
    give_back(chosen);
  }

  void finish(TrimTally& tally) override {
    for (const auto& engine : engines_) engine->finish(tally);
  }

 private:
  // The least busy engine, ties going to the first after the last chosen:
  // with as many calling threads as lanes the devices fill evenly, and a
  // slower device (or one shared by two workers) simply gets fewer chunks.
  std::size_t take() {
    const std::lock_guard lock(mutex_);
    const std::size_t n = engines_.size();
    std::size_t best = next_ % n;
    for (std::size_t k = 1; k < n; ++k) {
      const std::size_t e = (next_ + k) % n;
      if (in_flight_[e] < in_flight_[best]) best = e;
    }
    ++in_flight_[best];
    next_ = best + 1;
    return best;
  }
  void give_back(std::size_t engine) {
    const std::lock_guard lock(mutex_);
    --in_flight_[engine];
  }

  std::vector<std::unique_ptr<TrimEngine>> engines_;
  std::mutex mutex_;
  std::vector<std::size_t> in_flight_;
  std::size_t next_ = 0;
  std::string name_;
};

}  // namespace

std::vector<std::unique_ptr<TrimEngine>> make_device_engines(const std::vector<int>& devices,
                                                             const DeviceEngineFactory& make,
                                                             const BindDevice& bind) {
  std::vector<std::unique_ptr<TrimEngine>> engines(devices.size());
  // Each worker writes its own entry; run_device_workers joins them all
  // before returning or rethrowing (the engines made are freed then).
  run_device_workers(
      devices,
      [&](std::stop_token, std::size_t worker, int device) { engines[worker] = make(device); },
      bind);
  for (const auto& engine : engines)
    if (!engine) throw Error("internal: a GPU worker made no fastq-trim engine");
  return engines;
}

std::unique_ptr<TrimEngine> deal_to_engines(std::vector<std::unique_ptr<TrimEngine>> engines,
                                            std::string name) {
  return std::make_unique<DealingTrimEngine>(std::move(engines), std::move(name));
}

}  // namespace seqfuse::preprocess
