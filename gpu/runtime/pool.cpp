// DevicePool: host-side bookkeeping only, the same for every backend.
#include "core/error.hpp"
#include "runtime.hpp"

namespace seqfuse::gpu {

DeviceBuffer DevicePool::acquire(std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    // Best fit, but never more than twice the request: a huge cached buffer
    // handed to a tiny request would pin memory a later batch needs.
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first <= 2 * bytes + (1u << 20)) {
      DeviceBuffer buffer = std::move(it->second);
      free_.erase(it);
      return buffer;
    }
  }
  try {
    return DeviceBuffer(bytes);
  } catch (const OutOfDeviceMemory&) {
    trim();
    return DeviceBuffer(bytes);  // a second failure reaches the caller
  }
}

void DevicePool::release(DeviceBuffer buffer) {
  if (buffer.data() == nullptr) return;
  std::lock_guard lock(mutex_);
  free_.emplace(buffer.size(), std::move(buffer));
}

void DevicePool::trim() {
  std::lock_guard lock(mutex_);
  free_.clear();
}

std::size_t DevicePool::cached_bytes() const {
  std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (const auto& [size, buffer] : free_) total += size;
  return total;
}

}  // namespace seqfuse::gpu
