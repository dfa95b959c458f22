// The bucketed GPU suffix sort over several devices (`seqfuse bwt --device
// gpu:0,1,...`): the split is bucket_split.hpp's, the device pieces
// gpu/bwt/multi_sort.hpp's. Compiled only in builds with a GPU backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/bwt/suffix_sort.hpp"

namespace seqfuse::bwt {

// Why `devices` cannot share a sort (a device that cannot write into the
// first one's memory); empty when they can.
[[nodiscard]] std::string multi_sort_refusal(const std::vector<int>& devices);

// Fills `out` for the packed text as gpu::bwt::sort_suffixes does, the
// buckets sorted by one worker (host thread) per entry of `devices` (repeats
// allowed), the first device holding the ranks. `bucket_suffixes` forces the
// bucket capacity (0: from free memory). A worker that fails stops the
// others, and its error is rethrown once all have stopped.
void sort_on_devices(const gpu::bwt::PackedCodes& text, const gpu::bwt::SortOutput& out,
                     const std::vector<int>& devices, std::uint64_t bucket_suffixes);

}  // namespace seqfuse::bwt
