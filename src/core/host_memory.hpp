// How much host memory a run may take when the user does not say (-m).
#pragma once

#include <cstddef>

namespace seqfuse {

// -m/--max-memory's default in bytes: half the machine's memory, as KMC and
// Jellyfish users expect a tool to take a large share of it without asking
// (4 GiB when the system does not say).
[[nodiscard]] std::size_t default_max_memory();

inline constexpr double kBytesPerGB = 1024.0 * 1024.0 * 1024.0;  // -m's unit, 2^30 bytes

}  // namespace seqfuse
