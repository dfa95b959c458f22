// How much host memory a run may take when the user does not say (-m).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace seqfuse {

// -m/--max-memory's default in bytes: half the machine's memory, as KMC and
// Jellyfish users expect a tool to take a large share of it without asking
// (4 GiB when the system does not say).
[[nodiscard]] std::size_t default_max_memory();

// The machine's physical memory in bytes (0 when the system does not say).
[[nodiscard]] std::size_t host_memory_bytes();

inline constexpr double kBytesPerGB = 1024.0 * 1024.0 * 1024.0;  // -m's unit, 2^30 bytes

// "1.25 GB", or "37.2 MB" below a gigabyte (-m's units, powers of 2), for
// messages about memory.
[[nodiscard]] std::string memory_size(std::uint64_t bytes);

}  // namespace seqfuse
