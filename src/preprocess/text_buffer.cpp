#include "preprocess/text_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <utility>

#include "core/huge_pages.hpp"

namespace seqfuse::preprocess {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kGranule = std::size_t{64} << 10;

}  // namespace

TextBuffer& TextBuffer::operator=(TextBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void TextBuffer::grow(std::size_t wanted) {
  // Half as much again: a chunk's text settles after a few reads.
  std::size_t capacity = std::max(wanted, capacity_ + capacity_ / 2);
  capacity = (capacity + kGranule - 1) / kGranule * kGranule;
  // From 2 MiB on, aligned so that the whole huge pages inside it can be
  // huge (the tail past the last one stays in 4 KiB pages, so a 2.7 MB
  // chunk is not rounded up to 4 MiB of memory).
  const bool huge = capacity >= kHugePage;
  void* data =
      huge ? std::aligned_alloc(kHugePage, (capacity + kHugePage - 1) / kHugePage * kHugePage)
           : std::malloc(capacity);
  if (data == nullptr) throw std::bad_alloc();
  if (huge) advise_huge_pages(data, capacity);  // before the first write
  if (size_ > 0) std::memcpy(data, data_, size_);
  std::free(data_);
  data_ = static_cast<char*>(data);
  capacity_ = capacity;
}

void TextBuffer::release() noexcept {
  std::free(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

}  // namespace seqfuse::preprocess
