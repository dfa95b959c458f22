// How long a device was busy with some of its work, by the device's own
// clock: the union of timed spans (a kernel, or kernels queued back to back
// on one stream), so that spans on several streams or several threads that
// overlap count once. A search's "device" rate divides its cells by this,
// not by the host's time around the launches, which also holds copies,
// scatters and the waits between parts. Plain C++ header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace seqfuse::gpu {

// Seconds covered by at least one of `spans` (begin, end), in any order.
inline double covered_seconds(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  double covered = 0, reach = 0;
  bool any = false;
  for (const auto& [begin, end] : spans) {
    if (end <= begin) continue;
    if (!any || begin > reach) {
      covered += end - begin;
      reach = end;
      any = true;
    } else if (end > reach) {
      covered += end - reach;
      reach = end;
    }
  }
  return covered;
}

// Timed spans of one device's work. Create it on the device it times (it
// records its origin there); begin/end from any thread. busy_seconds waits
// for every recorded end.
class DeviceTimeline {
 public:
  DeviceTimeline();
  ~DeviceTimeline();
  DeviceTimeline(const DeviceTimeline&) = delete;
  DeviceTimeline& operator=(const DeviceTimeline&) = delete;

  // Marks the start of work queued on `stream` next (a gpuStream_t);
  // returns the span's handle for end().
  [[nodiscard]] std::size_t begin(void* stream);
  // Marks the end of the work queued on `stream` so far.
  void end(std::size_t span, void* stream);

  [[nodiscard]] double busy_seconds() const;

 private:
  mutable std::mutex mutex_;
  void* origin_ = nullptr;
  std::vector<std::pair<void*, void*>> events_;  // per span: begin, end (null until end())
};

}  // namespace seqfuse::gpu
