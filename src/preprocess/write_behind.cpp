#include "preprocess/write_behind.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace seqfuse::preprocess {

WriteBehind::WriteBehind(std::size_t buffers, std::size_t lanes, Write write)
    : next_(lanes, 0), lanes_left_(buffers, 0), write_(std::move(write)) {
  if (buffers == 0 || lanes == 0) throw std::invalid_argument("WriteBehind: no buffers or lanes");
  // Handed out in order 0, 1, ...: acquire() takes from the back.
  for (std::size_t b = buffers; b-- > 0;) free_.push_back(b);
  lanes_.reserve(lanes);
  try {
    for (std::size_t lane = 0; lane < lanes; ++lane)
      lanes_.emplace_back([this, lane] { run_lane(lane); });
  } catch (...) {
    stop_lanes();
    throw;
  }
}

WriteBehind::~WriteBehind() {
  stop_lanes();
}

void WriteBehind::stop_lanes() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  changed_.notify_all();
  for (std::thread& lane : lanes_)
    if (lane.joinable()) lane.join();
}

void WriteBehind::rethrow_error() const {
  if (error_) std::rethrow_exception(error_);
}

std::size_t WriteBehind::acquire() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !free_.empty() || error_ != nullptr || stopped_; });
  rethrow_error();
  if (free_.empty()) throw std::logic_error("WriteBehind: acquire after finish");
  const std::size_t buffer = free_.back();
  free_.pop_back();
  return buffer;
}

void WriteBehind::submit(std::size_t buffer) {
  {
    const std::lock_guard lock(mutex_);
    rethrow_error();
    if (closed_ || buffer >= lanes_left_.size() || lanes_left_[buffer] != 0)
      throw std::logic_error("WriteBehind: submit of a buffer not acquired");
    lanes_left_[buffer] = next_.size();
    submitted_.push_back(buffer);
  }
  changed_.notify_all();
}

void WriteBehind::finish() {
  {
    std::unique_lock lock(mutex_);
    closed_ = true;
    changed_.notify_all();
    const auto all_written = [&] {
      return std::all_of(next_.begin(), next_.end(),
                         [&](std::size_t next) { return next == submitted_.size(); });
    };
    changed_.wait(lock, [&] { return error_ != nullptr || all_written(); });
  }
  stop_lanes();
  const std::lock_guard lock(mutex_);
  rethrow_error();
}

void WriteBehind::run_lane(std::size_t lane) {
  for (;;) {
    std::size_t buffer = 0;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] {
        return stopped_ || error_ != nullptr || next_[lane] < submitted_.size() || closed_;
      });
      if (stopped_ || error_ != nullptr || next_[lane] == submitted_.size()) return;
      buffer = submitted_[next_[lane]];
    }
    try {
      write_(buffer, lane);
    } catch (...) {
      {
        const std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      changed_.notify_all();
      return;
    }
    {
      const std::lock_guard lock(mutex_);
      ++next_[lane];
      if (--lanes_left_[buffer] == 0) free_.push_back(buffer);
    }
    changed_.notify_all();
  }
}

}  // namespace seqfuse::preprocess
