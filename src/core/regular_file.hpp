// Random-access inputs (models, config.json, k-mer databases, matrices) are
// read the way only a regular file allows: mapped, sized, or read whole.
// A FIFO would block open() until a writer comes and a directory or device
// would fail later with a misleading message, so each is refused first with
// one clear line.
#pragma once

#include <string>
#include <string_view>

namespace seqfuse {

// Opens `path` read-only (close-on-exec) and returns the descriptor, or
// throws seqfuse::Error: "cannot open <what> 'PATH': <reason>" or "<what>
// 'PATH' is a FIFO, not a regular file" (directory, device, socket alike).
// The open never blocks: O_NONBLOCK, then fstat, then blocking mode again.
[[nodiscard]] int open_regular_file(const std::string& path, std::string_view what);

// The whole contents of the regular file `path`, with the same errors (and
// "cannot read <what> 'PATH': <reason>" for a read error).
[[nodiscard]] std::string read_regular_file(const std::string& path, std::string_view what);

}  // namespace seqfuse
