#include "io/huge_pages.hpp"

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace seqfuse::io {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t rounded(std::size_t bytes) {
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

class HugePageResource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (alignment > kHugePage) throw std::bad_alloc();
    // One extra huge page of room so the start can be aligned to a huge page
    // boundary (mmap only promises the base page size).
    const std::size_t length = rounded(bytes) + kHugePage;
    void* mapped =
        mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<char*>(mapped);
    const std::size_t lead =
        (kHugePage - reinterpret_cast<std::uintptr_t>(base) % kHugePage) % kHugePage;
    if (lead > 0) munmap(base, lead);
    const std::size_t tail = length - lead - rounded(bytes);
    if (tail > 0) munmap(base + lead + rounded(bytes), tail);
    (void)madvise(base + lead, rounded(bytes), MADV_HUGEPAGE);  // advice: ignored where unsupported
    return base + lead;
  }

  void do_deallocate(void* p, std::size_t bytes, std::size_t) override {
    munmap(p, rounded(bytes));
  }

  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

}  // namespace

std::pmr::memory_resource* huge_page_resource() {
  static HugePageResource resource;
  return &resource;
}

}  // namespace seqfuse::io
