// Runs on their way from several engines to the host at once. One engine
// brings one run over at a time, at most a third of -m (its room of k-mers
// is sized from -m); several GPU workers flushing together must not hold
// several such runs in host memory beyond that. The gate lets a run through
// while the bytes in flight, its own included, stay within the budget, and
// always lets one through when none is in flight, so a run larger than the
// budget still passes, alone.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace seqfuse::kmer {

class RunGate {
 public:
  explicit RunGate(std::size_t budget_bytes) : budget_(budget_bytes) {}

  // Held while a run of `bytes` is brought to the host and handed on.
  class Pass {
   public:
    Pass() = default;
    Pass(RunGate& gate, std::size_t bytes) : gate_(&gate), bytes_(bytes) { gate.enter(bytes); }
    ~Pass() {
      if (gate_ != nullptr) gate_->leave(bytes_);
    }
    Pass(Pass&& other) noexcept : gate_(other.gate_), bytes_(other.bytes_) {
      other.gate_ = nullptr;
    }
    Pass& operator=(Pass&&) = delete;
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    RunGate* gate_ = nullptr;
    std::size_t bytes_ = 0;
  };

  [[nodiscard]] std::size_t in_flight() const {
    const std::lock_guard lock(mutex_);
    return in_flight_;
  }

 private:
  void enter(std::size_t bytes) {
    std::unique_lock lock(mutex_);
    left_.wait(lock, [&] { return in_flight_ == 0 || in_flight_ + bytes <= budget_; });
    in_flight_ += bytes;
  }
  void leave(std::size_t bytes) {
    {
      const std::lock_guard lock(mutex_);
      in_flight_ -= bytes;
    }
    left_.notify_all();
  }

  const std::size_t budget_;
  mutable std::mutex mutex_;
  std::condition_variable left_;
  std::size_t in_flight_ = 0;
};

}  // namespace seqfuse::kmer
