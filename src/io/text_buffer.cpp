#include "io/text_buffer.hpp"

#include <algorithm>
#include <utility>

#include "core/huge_pages.hpp"

namespace seqfuse::io {
namespace {

constexpr std::size_t kGranule = std::size_t{64} << 10;

}  // namespace

TextBuffer::TextBuffer() noexcept : mr_(large_buffer_resource()) {}

TextBuffer::TextBuffer(TextBuffer&& other) noexcept
    : mr_(other.mr_),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      borrowed_(std::exchange(other.borrowed_, false)) {}

TextBuffer& TextBuffer::operator=(TextBuffer&& other) noexcept {
  if (this == &other) return *this;
  if (mr_->is_equal(*other.mr_)) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    borrowed_ = std::exchange(other.borrowed_, false);
  } else {
    // Memory of another resource (pinned) cannot be handed over: copy it
    // into ours, as std::pmr containers do.
    assign(other.view());
    other.release();
  }
  return *this;
}

void TextBuffer::grow(std::size_t wanted, bool geometric) {
  // Half as much again: a chunk's text settles after a few reads.
  std::size_t capacity = geometric ? std::max(wanted, capacity_ + capacity_ / 2) : wanted;
  if (geometric) capacity = (capacity + kGranule - 1) / kGranule * kGranule;
  char* data = static_cast<char*>(mr_->allocate(capacity));
  if (size_ > 0) std::memcpy(data, data_, size_);
  if (data_ != nullptr && !borrowed_) mr_->deallocate(data_, capacity_);
  data_ = data;
  capacity_ = capacity;
  borrowed_ = false;
}

void TextBuffer::release() noexcept {
  if (data_ != nullptr && !borrowed_) mr_->deallocate(data_, capacity_);
  data_ = nullptr;
  size_ = capacity_ = 0;
  borrowed_ = false;
}

}  // namespace seqfuse::io
