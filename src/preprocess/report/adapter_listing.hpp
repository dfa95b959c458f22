// What fastp's reports list of the adapter sequences cut (its JSON and its
// HTML alike): each making at least 1 % of all those cut, shorter first,
// then in byte order, and the rest as one count ("others").
//
// A run lists them from its workers' counts as they stand instead of
// merging those first: nearly every read that runs past its insert cuts a
// sequence of its own, and merging 16 workers' tens of thousands of them
// took 45-100 ms at the end of a 1.2 s GPU run (runs 35a, 35b). A sequence
// at 1 % of the sum is at 1 % of some worker's count (were it under 1 % in
// each, its sum would be under 1 % of theirs), so only each worker's few
// frequent sequences need summing across workers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "preprocess/filter_counts.hpp"

namespace seqfuse::preprocess {

struct AdapterListing {
  std::vector<std::pair<std::string, std::uint64_t>> listed;
  std::uint64_t total = 0, others = 0;
};

// The listing of the sum of `parts` (one worker's counts each), on up to
// `threads` threads.
[[nodiscard]] AdapterListing list_adapters(std::span<const AdapterCounts* const> parts,
                                           unsigned threads = 1);
[[nodiscard]] inline AdapterListing list_adapters(const AdapterCounts& counts) {
  const AdapterCounts* const part = &counts;
  return list_adapters({&part, 1});
}

}  // namespace seqfuse::preprocess
