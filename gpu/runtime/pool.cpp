// DevicePool: host-side bookkeeping only, the same for every backend.
#include <map>
#include <mutex>

#include "gpu/error.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::gpu {

struct DevicePool::Cache {
  std::mutex mutex;
  std::multimap<std::size_t, DeviceBuffer> free;  // by size, for best fit
};

DevicePool::DevicePool() : cache_(std::make_unique<Cache>()) {}
DevicePool::~DevicePool() = default;

DeviceBuffer DevicePool::acquire(std::size_t bytes) {
  {
    std::lock_guard lock(cache_->mutex);
    // Best fit, but never more than twice the request: a huge cached buffer
    // handed to a tiny request would pin memory a later batch needs.
    auto it = cache_->free.lower_bound(bytes);
    if (it != cache_->free.end() && it->first <= 2 * bytes + (1u << 20)) {
      DeviceBuffer buffer = std::move(it->second);
      cache_->free.erase(it);
      return buffer;
    }
  }
  try {
    return DeviceBuffer(bytes);
  } catch (const OutOfMemory&) {
    trim();
    return DeviceBuffer(bytes);  // a second failure reaches the caller
  }
}

void DevicePool::release(DeviceBuffer buffer) {
  if (buffer.data() == nullptr) return;
  std::lock_guard lock(cache_->mutex);
  cache_->free.emplace(buffer.size(), std::move(buffer));
}

void DevicePool::trim() {
  std::lock_guard lock(cache_->mutex);
  cache_->free.clear();
}

std::size_t DevicePool::cached_bytes() const {
  std::lock_guard lock(cache_->mutex);
  std::size_t total = 0;
  for (const auto& [size, buffer] : cache_->free) total += size;
  return total;
}

}  // namespace seqfuse::gpu
