// Transparent huge pages for the few large host buffers (sequence text and
// codes, gigabytes each for a large input): with 4 KiB pages the kernel
// faults, zeroes and later frees hundreds of thousands of pages one by one,
// which took a large share of reading a 2.5 GB FASTA and of process exit
// after 10 M pairs (bench/results/align-gpu-notes.md, session 10). Where the
// system does not allow them (transparent_hugepage "never", not Linux) these
// are plain allocations.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace seqfuse {

// Asks for huge pages on the whole 2 MiB pages inside [data, data + bytes);
// call before the memory is first written. Best effort, never fails.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// Allocations of at least 4 MiB aligned to 2 MiB and advised as above;
// smaller ones from new/delete. One process-wide instance.
[[nodiscard]] std::pmr::memory_resource* large_buffer_resource() noexcept;

}  // namespace seqfuse
