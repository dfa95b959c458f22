// CRC-64 of file contents (k-mer databases, search databases): ISA-L's
// crc64_ecma_refl, the CRC-64/XZ of xz and many checksums tools, and the
// combination of two CRCs, so that pieces checksummed on different threads
// give the CRC of the pieces joined.
#pragma once

#include <cstddef>
#include <cstdint>

namespace seqfuse::io {

// The CRC of `crc`'s data followed by data[0, size); 0 starts anew.
[[nodiscard]] std::uint64_t crc64(std::uint64_t crc, const void* data, std::size_t size) noexcept;

// crc64(0, A followed by B) from crc64(0, A), crc64(0, B) and B's length.
[[nodiscard]] std::uint64_t crc64_combine(std::uint64_t crc_a, std::uint64_t crc_b,
                                          std::uint64_t size_b) noexcept;

}  // namespace seqfuse::io
