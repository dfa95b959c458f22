// LineBuffer: hands out complete lines of a CompressedInput from one large
// buffer, refilled in big reads. Lines are views into the buffer: scanning with
// memchr and never copying a line is what lets the parser run at memory speed.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>

#include "io/compressed_input.hpp"

namespace seqfuse::io {

// Thrown out of a read when the cancel flag is raised (the owner is shutting down).
struct ReadCancelled {};

class LineBuffer {
 public:
  static constexpr std::size_t kInitialCapacity = std::size_t{4} << 20;

  explicit LineBuffer(CompressedInput& input, std::size_t initial_capacity = kInitialCapacity);

  // Takes up to `count` lines (without '\n' and without a trailing '\r'). Returns
  // `count` unless the input ends first; then returns how many lines were left
  // (a last line without '\n' counts). The views stay valid until the next call
  // of any member function. `count` lines must fit in memory: the buffer grows
  // to hold them, which is how very long lines (whole chromosomes) are read.
  [[nodiscard]] std::size_t take_lines(std::string_view* lines, std::size_t count);

  // The next byte without consuming it; -1 at the end of the input.
  [[nodiscard]] int peek();

  // Checked before each read from the input; when it becomes true, reads throw
  // ReadCancelled so a background parser can stop inside a long batch.
  void set_cancel_flag(const std::atomic<bool>* cancel) noexcept { cancel_ = cancel; }

 private:
  // Moves the unconsumed bytes to the front, grows the buffer when it is full,
  // and reads more. Returns false at the end of the input.
  bool refill();

  CompressedInput& input_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last valid byte
  bool input_ended_ = false;
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace seqfuse::io
