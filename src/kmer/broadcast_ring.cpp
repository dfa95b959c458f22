#include "kmer/broadcast_ring.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace seqfuse::kmer {

BroadcastRing::BroadcastRing(std::size_t consumers, std::size_t slots)
    : slots_(slots), released_(consumers, 0) {
  if (consumers == 0 || slots == 0) throw Error("internal: a broadcast ring without room");
}

std::size_t BroadcastRing::released_by_all() const {
  return *std::min_element(released_.begin(), released_.end());
}

bool BroadcastRing::wait_for_slot(std::size_t index) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopped_ || index < released_by_all() + slots_; });
  return !stopped_;
}

bool BroadcastRing::wait_released(std::size_t count) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopped_ || released_by_all() >= count; });
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

bool BroadcastRing::wait_for_piece(std::size_t index, std::stop_token stop) {
  std::unique_lock lock(mutex_);
  const bool ready =
      changed_.wait(lock, stop, [&] { return stopped_ || closed_ || index < published_; });
  return ready && !stopped_ && index < published_;
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

}  // namespace seqfuse::kmer
