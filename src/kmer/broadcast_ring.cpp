#include "kmer/broadcast_ring.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/error.hpp"

namespace seqfuse::kmer {
namespace {

// Waits on `changed` until `done` or a stop request, adding the seconds
// blocked to `waited` (nothing when `done` already holds: the common case
// costs no clock read).
template <typename Lock, typename Done>
void timed_wait(std::condition_variable_any& changed, Lock& lock, Done done, double& waited,
                std::stop_token stop = {}) {
  if (done()) return;
  const auto start = std::chrono::steady_clock::now();
  (void)changed.wait(lock, stop, done);
  waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BroadcastRing::BroadcastRing(std::size_t consumers, std::size_t slots)
    : slots_(slots), released_(consumers, 0), consumer_wait_(consumers, 0) {
  if (consumers == 0 || slots == 0) throw Error("internal: a broadcast ring without room");
}

std::size_t BroadcastRing::released_by_all() const {
  return *std::min_element(released_.begin(), released_.end());
}

bool BroadcastRing::wait_for_slot(std::size_t index) {
  std::unique_lock lock(mutex_);
  timed_wait(
      changed_, lock, [&] { return stopped_ || index < released_by_all() + slots_; },
      producer_wait_);
  return !stopped_;
}

bool BroadcastRing::wait_released(std::size_t count) {
  std::unique_lock lock(mutex_);
  timed_wait(
      changed_, lock, [&] { return stopped_ || released_by_all() >= count; }, producer_wait_);
  return !stopped_;
}

void BroadcastRing::publish(std::size_t count) {
  {
    const std::lock_guard lock(mutex_);
    published_ = std::max(published_, count);
  }
  changed_.notify_all();
}

void BroadcastRing::close() {
  {
    const std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool BroadcastRing::wait_for_piece(std::size_t consumer, std::size_t index, std::stop_token stop) {
  std::unique_lock lock(mutex_);
  timed_wait(
      changed_, lock, [&] { return stopped_ || closed_ || index < published_; },
      consumer_wait_.at(consumer), std::move(stop));
  return !stopped_ && index < published_;
}

void BroadcastRing::release(std::size_t consumer, std::size_t count) {
  {
    const std::lock_guard lock(mutex_);
    released_.at(consumer) = std::max(released_.at(consumer), count);
  }
  changed_.notify_all();
}

void BroadcastRing::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  changed_.notify_all();
}

bool BroadcastRing::stopped() const {
  const std::lock_guard lock(mutex_);
  return stopped_;
}

double BroadcastRing::producer_wait_seconds() const {
  const std::lock_guard lock(mutex_);
  return producer_wait_;
}

double BroadcastRing::consumer_wait_seconds(std::size_t consumer) const {
  const std::lock_guard lock(mutex_);
  return consumer_wait_.at(consumer);
}

}  // namespace seqfuse::kmer
