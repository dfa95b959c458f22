// Device op: ASCII bases -> 2-bit codes (see base_code.hpp).
#pragma once

#include <cstddef>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu {

// Checks that `n` bytes fit both buffers, then encodes ascii[0, n) into
// codes[0, n) on `stream`. Returns without waiting for the stream.
[[nodiscard]] Status encode_bases(const DeviceBuffer& ascii, DeviceBuffer& codes, std::size_t n,
                                  Stream& stream);

}  // namespace seqfuse::gpu
