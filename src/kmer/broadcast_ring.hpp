// The input of a count split across GPU workers, read once and seen by every
// worker: one producer (the reading thread) numbers its pieces 0, 1, 2, ...
// and every consumer (a worker) takes each of them, in order, at its own
// pace. Piece i lives in slot i % slots (the owner keeps the slots; this
// class only keeps the numbers), so the producer may refill that slot with
// piece i only once every consumer has released piece i - slots: workers
// drift apart by up to `slots` pieces without waiting for one another.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stop_token>
#include <vector>

namespace seqfuse::kmer {

class BroadcastRing {
 public:
  BroadcastRing(std::size_t consumers, std::size_t slots);

  [[nodiscard]] std::size_t slots() const noexcept { return slots_; }

  // Producer: waits until piece `index` may go into its slot. False once
  // stopped.
  [[nodiscard]] bool wait_for_slot(std::size_t index);
  // Producer: waits until every consumer has released the pieces before
  // `count`. False once stopped.
  [[nodiscard]] bool wait_released(std::size_t count);
  // Producer: pieces [0, count) are in their slots.
  void publish(std::size_t count);
  // Producer: no piece comes after those published.
  void close();

  // Consumer `consumer`: waits for piece `index`. False at the end (closed
  // before that piece), once stopped, or when `stop` is requested.
  [[nodiscard]] bool wait_for_piece(std::size_t consumer, std::size_t index, std::stop_token stop);
  // Consumer `consumer` is done with the pieces before `count`.
  void release(std::size_t consumer, std::size_t count);

  // Anyone: the run failed. Every wait returns false from now on.
  void stop();
  [[nodiscard]] bool stopped() const;

  // Seconds spent blocked so far (SEQFUSE_TRACE's account of who waits for
  // whom): the producer in wait_for_slot/wait_released, each consumer in
  // wait_for_piece. Read once the ring is idle.
  [[nodiscard]] double producer_wait_seconds() const;
  [[nodiscard]] double consumer_wait_seconds(std::size_t consumer) const;

 private:
  [[nodiscard]] std::size_t released_by_all() const;  // mutex_ held

  const std::size_t slots_;
  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  std::vector<std::size_t> released_;  // per consumer
  double producer_wait_ = 0;
  std::vector<double> consumer_wait_;  // per consumer
  std::size_t published_ = 0;
  bool closed_ = false;
  bool stopped_ = false;
};

}  // namespace seqfuse::kmer
