// The bytes of a chunk of FASTQ records (ReadChunk::text): a growable char
// buffer that, unlike std::string, leaves grown bytes unwritten, and keeps
// its large allocations on huge pages.
//
// Issue 17: the reading thread of each file bounds a plain fastq-trim run
// on the GPU. With std::string it wrote every byte twice (resize() zeroes
// what read() then overwrites), and it faulted the chunk buffers in 4 KiB
// pages on their first use (2 groups x 64 chunks x 2.7 MB a file on 16
// threads: ~170,000 faults; run 27e: THP for malloc took 6 % off the run).
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace seqfuse::preprocess {

class TextBuffer {
 public:
  TextBuffer() = default;
  ~TextBuffer() { release(); }
  TextBuffer(const TextBuffer& other) { assign(other.view()); }
  TextBuffer& operator=(const TextBuffer& other) {
    if (this != &other) assign(other.view());
    return *this;
  }
  TextBuffer(TextBuffer&& other) noexcept
      : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  TextBuffer& operator=(TextBuffer&& other) noexcept;

  [[nodiscard]] char* data() noexcept { return data_; }
  [[nodiscard]] const char* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::string_view view() const noexcept { return {data_, size_}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: a string's way
  char& operator[](std::size_t i) noexcept { return data_[i]; }
  const char& operator[](std::size_t i) const noexcept { return data_[i]; }

  void clear() noexcept { size_ = 0; }
  // Bytes past the old size are left as they are (unwritten): the caller
  // fills them (read() into them) or shrinks back.
  void resize(std::size_t size) {
    if (size > capacity_) grow(size);
    size_ = size;
  }
  void reserve(std::size_t capacity) {
    if (capacity > capacity_) grow(capacity);
  }
  void assign(std::string_view bytes) {
    clear();
    append(bytes);
  }
  void append(const char* bytes, std::size_t n) {
    if (n == 0) return;
    if (size_ + n > capacity_) grow(size_ + n);
    std::memcpy(data_ + size_, bytes, n);
    size_ += n;
  }
  void append(std::string_view bytes) { append(bytes.data(), bytes.size()); }
  TextBuffer& operator+=(std::string_view bytes) {
    append(bytes);
    return *this;
  }
  TextBuffer& operator+=(char c) {
    append(&c, 1);
    return *this;
  }
  friend bool operator==(const TextBuffer& a, std::string_view b) noexcept { return a.view() == b; }

 private:
  void grow(std::size_t wanted);  // at least `wanted`, geometrically; keeps the bytes
  void release() noexcept;

  char* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace seqfuse::preprocess
