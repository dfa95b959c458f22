// Memory for large text buffers in 2 MiB pages where the kernel allows
// transparent huge pages (madvise mode or always). Filling a 32 MiB read
// buffer then costs 16 page faults instead of 8,192; kmer-count's threads
// reading a whole file into such buffers while the GPU driver starts
// otherwise spend most of their system time faulting pages in, and contend
// with the driver's own mappings.
#pragma once

#include <memory_resource>

namespace seqfuse::io {

// A process-wide resource: mmap'd, 2 MiB-aligned, MADV_HUGEPAGE. Falls back
// to ordinary pages when the kernel refuses the advice.
[[nodiscard]] std::pmr::memory_resource* huge_page_resource();

}  // namespace seqfuse::io
