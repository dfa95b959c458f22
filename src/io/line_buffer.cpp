#include "io/line_buffer.hpp"

#include <cstring>

#include "io/record_text.hpp"

namespace seqfuse::io {

LineBuffer::LineBuffer(CompressedInput& input, std::size_t initial_capacity)
    : input_(input),
      buffer_(std::make_unique_for_overwrite<char[]>(initial_capacity)),
      capacity_(initial_capacity) {}

std::size_t LineBuffer::take_lines(std::string_view* lines, std::size_t count) {
  for (;;) {
    const char* cursor = buffer_.get() + begin_;
    const char* const end = buffer_.get() + end_;
    std::size_t taken = 0;
    while (taken < count) {
      const auto* newline = static_cast<const char*>(
          std::memchr(cursor, '\n', static_cast<std::size_t>(end - cursor)));
      if (newline == nullptr) break;
      lines[taken++] = line_without_cr(cursor, newline);
      cursor = newline + 1;
    }
    const bool complete = taken == count;
    if (complete || input_ended_) {
      if (!complete && cursor != end) {  // last line of the input has no '\n'
        lines[taken++] = line_without_cr(cursor, end);
        cursor = end;
      }
      begin_ = static_cast<std::size_t>(cursor - buffer_.get());
      return taken;
    }
    // The lines asked for straddle the end of the buffer: read on and rescan
    // them from their start (rare: once per refill, not per line).
    (void)refill();
  }
}

int LineBuffer::peek() {
  if (begin_ == end_ && !refill()) return -1;
  return static_cast<unsigned char>(buffer_[begin_]);
}

bool LineBuffer::refill() {
  if (input_ended_) return false;
  if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) throw ReadCancelled{};
  if (begin_ != 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    const std::size_t grown = capacity_ * 2;
    auto bigger = std::make_unique_for_overwrite<char[]>(grown);
    std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  const std::size_t got = input_.read(buffer_.get() + end_, capacity_ - end_);
  end_ += got;
  if (got == 0) input_ended_ = true;
  return got != 0;
}

}  // namespace seqfuse::io
