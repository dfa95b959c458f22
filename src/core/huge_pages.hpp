// Transparent huge pages for the few large host buffers: sequence text and
// codes (gigabytes each for a large input) and kmer-count's FASTQ text
// chunks. With 4 KiB pages the kernel faults, zeroes and later frees every
// page one by one: a 32 MiB buffer costs 8,192 faults instead of 16. That
// took a large share of reading a 2.5 GB FASTA and of process exit after
// 10 M pairs (0.4-0.9 s of 6-9 s on an H100 machine;
// bench/results/align-gpu-notes.md, "Huge pages for the big host buffers"),
// and slowed the GPU driver's start-up while kmer-count's threads read the
// input beside it (0.32-0.36 s instead of 0.27-0.30 s;
// bench/results/2026-11-24-nvidia-h100-run4.md). Where the system does not
// allow them (transparent_hugepage "never", not Linux) these are plain
// allocations.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace seqfuse {

// Asks for huge pages on the whole 2 MiB pages inside [data, data + bytes);
// call before the memory is first written. Best effort, never fails.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// Allocations of at least 2 MiB aligned to 2 MiB and advised as above;
// smaller ones, where huge pages would save little, from new/delete. One
// process-wide instance.
[[nodiscard]] std::pmr::memory_resource* large_buffer_resource() noexcept;

}  // namespace seqfuse
