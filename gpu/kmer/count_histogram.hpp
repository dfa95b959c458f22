// How many distinct k-mers have each count, computed where the counts are:
// for a histogram-only run the k-mers themselves never leave the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu {

// (count, distinct k-mers with that count) for every count present, in
// ascending count order, from counts[0, n) (device memory). `total` is the
// sum of the counts, which bounds how many can be large. Waits for the
// stream.
[[nodiscard]] Status count_frequencies(const std::uint32_t* counts, std::size_t n,
                                       std::uint64_t total,
                                       std::vector<std::pair<std::uint32_t, std::uint64_t>>& out,
                                       Stream& stream);

}  // namespace seqfuse::gpu
