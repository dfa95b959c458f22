#include "gpu/trace.hpp"

#include <atomic>

namespace seqfuse::gpu {
namespace {
// Constant-initialised, so a sink registered during static initialisation
// of another file is never overwritten.
std::atomic<TraceSink> sink{nullptr};
}  // namespace

void set_trace_sink(TraceSink s) noexcept {
  sink.store(s, std::memory_order_relaxed);
}

void trace(std::string_view phase) {
  if (TraceSink s = sink.load(std::memory_order_relaxed)) s(phase);
}

}  // namespace seqfuse::gpu
