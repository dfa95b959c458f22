// The suffix array of a 2-bit text on the device, by prefix doubling over
// device radix sorts (suffix_sort.cu; the shared arithmetic and the proof of
// the order are in prefix_doubling.hpp). Plain C++ so src/bwt can call it.
#pragma once

#include <cstdint>
#include <span>

#include "gpu/status.hpp"

namespace seqfuse::gpu::bwt {

// Device memory suffix_array needs for a text of n codes (bytes), to check
// before calling: 30 bytes per suffix, the text, and room for the sorts'
// temporary storage (an estimate with a margin, not a library query).
[[nodiscard]] std::uint64_t suffix_array_device_bytes(std::uint64_t n);

// Checked entry point: sa (host, n + 1 entries) becomes the suffix array of
// text$ exactly as bwt::suffix_array_cpu gives it ('$' implicit and smallest,
// sa[0] = n). Returns kInvalidSize when n + 1 >= 2^32 (this version's limit;
// bucketed builds come later) or sa.size() != n + 1, kInvalidArgument for a
// code above 3 (sa untouched then). Runs on the calling thread's current
// device, on a stream of its own, and waits for it; throws gpu::Error /
// gpu::OutOfMemory (gpu/error.hpp) from failed runtime calls.
[[nodiscard]] Status suffix_array(std::span<const std::uint8_t> text, std::span<std::uint64_t> sa);

}  // namespace seqfuse::gpu::bwt
