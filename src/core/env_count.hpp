// A count from an environment variable, for the knobs that measure a choice
// on a GPU machine (SEQFUSE_TRIM_GPU_CHUNK, SEQFUSE_TRIM_GPU_LANES,
// SEQFUSE_BWT_BUCKET_SUFFIXES): one parser, so each says the same thing
// about a bad value.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace seqfuse {

// The value of `name`: nothing when unset or empty; otherwise decimal digits
// only, from 1 to `most`, else a UsageError "<name> must be <what>[ from 1 to
// <most>], not '<value>'" (the range is named when `most` bounds it).
[[nodiscard]] std::optional<std::uint64_t> env_count(
    const char* name, const std::string& what,
    std::uint64_t most = std::numeric_limits<std::uint64_t>::max());

}  // namespace seqfuse
