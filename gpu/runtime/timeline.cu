// DeviceTimeline: timed events against one origin event per timeline.
#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include "gpu/error.hpp"
#include "gpu/timeline.hpp"

namespace seqfuse::gpu {
namespace {

gpuEvent_t timed_event() {
  gpuEvent_t e = nullptr;
  GPU_CHECK(gpuEventCreate(&e));
  return e;
}

// Seconds from `from` to `to`, both recorded; waits for `to`.
double seconds_between(void* from, void* to) {
  GPU_CHECK(gpuEventSynchronize(static_cast<gpuEvent_t>(to)));
  float ms = 0;
  GPU_CHECK(gpuEventElapsedTime(&ms, static_cast<gpuEvent_t>(from), static_cast<gpuEvent_t>(to)));
  return ms / 1000.0;
}

}  // namespace

DeviceTimeline::DeviceTimeline() {
  gpuEvent_t origin = timed_event();
  origin_ = origin;
  // On the legacy default stream, with nothing queued: the origin is "now".
  GPU_CHECK(gpuEventRecord(origin, nullptr));
}

DeviceTimeline::~DeviceTimeline() {
  for (auto [b, e] : events_) {
    (void)gpuEventDestroy(static_cast<gpuEvent_t>(b));
    if (e) (void)gpuEventDestroy(static_cast<gpuEvent_t>(e));
  }
  (void)gpuEventDestroy(static_cast<gpuEvent_t>(origin_));
}

std::size_t DeviceTimeline::begin(void* stream) {
  gpuEvent_t e = timed_event();
  GPU_CHECK(gpuEventRecord(e, static_cast<gpuStream_t>(stream)));
  const std::lock_guard lock(mutex_);
  events_.emplace_back(e, nullptr);
  return events_.size() - 1;
}

void DeviceTimeline::end(std::size_t span, void* stream) {
  gpuEvent_t e = timed_event();
  GPU_CHECK(gpuEventRecord(e, static_cast<gpuStream_t>(stream)));
  const std::lock_guard lock(mutex_);
  events_[span].second = e;
}

double DeviceTimeline::busy_seconds() const {
  std::vector<std::pair<double, double>> spans;
  const std::lock_guard lock(mutex_);
  spans.reserve(events_.size());
  for (auto [b, e] : events_)
    if (e) spans.emplace_back(seconds_between(origin_, b), seconds_between(origin_, e));
  return covered_seconds(std::move(spans));
}

}  // namespace seqfuse::gpu
