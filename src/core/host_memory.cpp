#include "core/host_memory.hpp"

#include <unistd.h>

#include <cstdio>

namespace seqfuse {

std::size_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
}

std::size_t default_max_memory() {
  const std::size_t total = host_memory_bytes();
  return total == 0 ? std::size_t{4} << 30 : total / 2;
}

std::string memory_size(std::uint64_t bytes) {
  const double gb = static_cast<double>(bytes) / kBytesPerGB;
  char text[32];
  if (gb >= 1)
    std::snprintf(text, sizeof text, "%.2f GB", gb);
  else
    std::snprintf(text, sizeof text, "%.1f MB", gb * 1024);
  return text;
}

}  // namespace seqfuse
