#include "core/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace seqfuse {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLargeBuffer = kHugePage;

class LargeBufferResource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (bytes < kLargeBuffer || alignment > kHugePage)
      return std::pmr::new_delete_resource()->allocate(bytes, alignment);
    const std::size_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* data = std::aligned_alloc(kHugePage, size);
    if (data == nullptr) throw std::bad_alloc();
    // Only the whole huge pages inside the request: the tail past the last
    // one stays in 4 KiB pages, so a 2.7 MB chunk does not take 4 MiB.
    advise_huge_pages(data, bytes);
    return data;
  }
  void do_deallocate(void* data, std::size_t bytes, std::size_t alignment) override {
    if (bytes < kLargeBuffer || alignment > kHugePage)
      std::pmr::new_delete_resource()->deallocate(data, bytes, alignment);
    else
      std::free(data);
  }
  [[nodiscard]] bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

}  // namespace

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t last = (begin + bytes) / kHugePage * kHugePage;
  if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

std::pmr::memory_resource* large_buffer_resource() noexcept {
  static LargeBufferResource resource;
  return &resource;
}

}  // namespace seqfuse
