// The two ways gpu/bwt sorts suffixes, behind sort_suffixes (suffix_sort.cu
// chooses between them). Inputs are checked there, and the text (n codes)
// is on the device already.
#pragma once

#include <cstdint>

#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::gpu::bwt {

// Prefix doubling over all n + 1 suffixes at once (doubling_sort.cu):
// n + 1 < 2^32 and one_pass_device_bytes(n) of device memory.
void sort_one_pass(const std::uint8_t* text, std::uint64_t n, const SortOutput& out,
                   Stream& stream);

// Buckets of at most `capacity` suffixes, each sorted by deepening windows
// (bucket_sort.cu); capacity 0 takes what device memory allows.
void sort_in_buckets(const std::uint8_t* text, std::uint64_t n, const SortOutput& out,
                     std::uint64_t capacity, Stream& stream);

}  // namespace seqfuse::gpu::bwt
