// io::TextBuffer: the one growable text buffer of fastq-trim's chunks and
// kmer-count's (pinned) chunks.
#include <catch2/catch.hpp>

#include <memory_resource>
#include <string>
#include <utility>

#include "io/text_buffer.hpp"

using seqfuse::io::TextBuffer;

namespace {

// Counts what it hands out, so a test sees which resource held the bytes.
class CountingResource final : public std::pmr::memory_resource {
 public:
  std::size_t live = 0, allocations = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    ++allocations;
    live += bytes;
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    live -= bytes;
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  [[nodiscard]] bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

}  // namespace

TEST_CASE("text buffers append, resize and keep their bytes as they grow", "[io]") {
  TextBuffer text;
  CHECK(text.empty());
  std::string expected;
  for (int i = 0; i < 20000; ++i) {
    const std::string piece = "@r" + std::to_string(i) + "\nACGT\n+\nIIII\n";
    text += piece;
    expected += piece;
  }
  text += '!';
  expected += '!';
  CHECK(text == expected);
  CHECK(text.capacity() >= text.size());
  text.resize(3);  // shrinking keeps the front
  CHECK(text.view() == "@r0");
  const std::size_t room = text.capacity();
  text.resize(room);  // within the room: no new memory
  CHECK(text.capacity() == room);
  text.clear();
  CHECK((text.empty() && text.capacity() == room));
}

TEST_CASE("text buffers reserve exactly, and copies and moves respect their resources", "[io]") {
  CountingResource pinned;
  TextBuffer a(&pinned);
  a.reserve(1000);
  CHECK(a.capacity() == 1000);  // sized once, no slack (pinned memory is dear)
  CHECK(pinned.live == 1000);
  a.assign("ACGT");
  CHECK(a.capacity() == 1000);

  TextBuffer copy = a;  // same resource as the original
  CHECK(copy == "ACGT");
  CHECK(pinned.allocations == 2);

  TextBuffer moved = std::move(copy);  // hands the memory over
  CHECK(moved == "ACGT");
  CHECK(copy.empty());
  CHECK(pinned.allocations == 2);

  TextBuffer plain;  // another resource: bytes copied, the pinned memory freed
  plain = std::move(moved);
  CHECK(plain == "ACGT");
  CHECK(moved.capacity() == 0);
  CHECK(pinned.live == 1000);  // only `a` left there
}
