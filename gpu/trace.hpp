// Phase marks from inside the kernel layer's host code ("batch scored"), for
// SEQFUSE_TRACE runs. The layer does not print them itself: src/core's
// trace() registers itself as the sink before main(), so the marks land in
// the same timeline as the rest of the run. With no sink they are dropped.
#pragma once

#include <string_view>

namespace seqfuse::gpu {

using TraceSink = void (*)(std::string_view phase);

void set_trace_sink(TraceSink sink) noexcept;
void trace(std::string_view phase);

}  // namespace seqfuse::gpu
