// TextBuffer: the bytes of a chunk of sequence text (FASTQ records as they
// stand in the file). A growable char buffer that, unlike std::string or a
// vector, leaves grown bytes unwritten, and takes its memory from a memory
// resource: by default large_buffer_resource() (huge pages for the large
// chunks), or pinned memory for buffers copied to a device.
//
// A buffer may also borrow bytes that live elsewhere (borrow(): a mapped
// input file's records, so the reading thread copies nothing); it owns
// memory again once it grows or is cleared.
//
// Why no zero-fill: the reading threads bound fastq-trim and kmer-count on
// the GPU. With std::string every byte was written twice (resize() zeroes
// what read() then overwrites), and the chunk buffers faulted in 4 KiB
// pages on first use (issue 17; run 27e: huge pages took 6 % off the run).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory_resource>
#include <string_view>

namespace seqfuse::io {

class TextBuffer {
 public:
  TextBuffer() noexcept;
  explicit TextBuffer(std::pmr::memory_resource* mr) noexcept : mr_(mr) {}
  ~TextBuffer() { release(); }
  // A copy takes its memory from the same resource as the original.
  TextBuffer(const TextBuffer& other) : mr_(other.mr_) { assign(other.view()); }
  TextBuffer& operator=(const TextBuffer& other) {
    if (this != &other) assign(other.view());
    return *this;
  }
  TextBuffer(TextBuffer&& other) noexcept;
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

  void clear() noexcept {
    if (borrowed_) forget_borrowed();
    size_ = 0;
  }
  // Points at `size` bytes at `data`, which must outlive the borrow (until
  // clear(), assign(), growth, a move or destruction); frees what it owned.
  // The bytes may be edited in place and shrunk (resize to less), never
  // written past `size`.
  void borrow(char* data, std::size_t size) noexcept {
    release();
    data_ = data;
    size_ = capacity_ = size;
    borrowed_ = true;
  }
  [[nodiscard]] bool borrowed() const noexcept { return borrowed_; }
  // Bytes past the old size are left as they are (unwritten): the caller
  // fills them (read() into them) or shrinks back. Grows geometrically.
  void resize(std::size_t size) {
    if (size > capacity_) grow(size, true);
    size_ = size;
  }
  // Room for exactly `capacity` bytes (pinned buffers are sized once, so
  // no slack); the first size() bytes are kept.
  void reserve(std::size_t capacity) {
    if (capacity > capacity_) grow(capacity, false);
  }
  void assign(std::string_view bytes) {
    clear();
    append(bytes);
  }
  void append(const char* bytes, std::size_t n) {
    if (n == 0) return;
    if (size_ + n > capacity_) grow(size_ + n, true);
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
  void grow(std::size_t wanted, bool geometric);  // keeps the first size() bytes
  void release() noexcept;
  void forget_borrowed() noexcept {
    data_ = nullptr;
    capacity_ = 0;
    borrowed_ = false;
  }

  std::pmr::memory_resource* mr_;
  char* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
  bool borrowed_ = false;  // data_ is not ours to free
};

}  // namespace seqfuse::io
