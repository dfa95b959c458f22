// Device buffers, pinned host memory and streams.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu/error.hpp"
#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu {
namespace {

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

gpuStream_t native(Stream& s) {
  return static_cast<gpuStream_t>(s.native());
}

// Pinned memory when a device is present; heap memory otherwise, so CPU runs
// of a GPU build behave like a CPU-only build.
class PinnedResource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (alignment > 4096) throw std::bad_alloc();
    void* p = nullptr;
    if (gpuHostAlloc(&p, bytes == 0 ? 1 : bytes) != gpuSuccess) {
      (void)gpuGetLastError();
      throw std::bad_alloc();
    }
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { (void)gpuFreeHost(p); }
  bool do_is_equal(const memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  gpuError_t err = gpuMalloc(&ptr_, bytes);
  if (err == gpuErrorMemoryAllocation) {
    (void)gpuGetLastError();
    std::size_t free_bytes = 0, total_bytes = 0;
    (void)gpuMemGetInfo(&free_bytes, &total_bytes);
    throw OutOfMemory("device out of memory: requested " + mib(bytes) + ", " + mib(free_bytes) +
                      " free of " + mib(total_bytes));
  }
  GPU_CHECK(err);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) (void)gpuFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) (void)gpuFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

std::pmr::memory_resource* pinned_resource() {
  static PinnedResource pinned;
  static std::pmr::memory_resource* chosen =
      devices().empty() ? std::pmr::new_delete_resource() : &pinned;
  return chosen;
}

Stream::Stream(StreamPriority priority) {
  gpuStream_t s = nullptr;
  if (priority == StreamPriority::high) {
    int least = 0, greatest = 0;  // numerically lower is higher priority
    GPU_CHECK(gpuDeviceGetStreamPriorityRange(&least, &greatest));
    GPU_CHECK(gpuStreamCreateWithPriority(&s, gpuStreamNonBlocking, greatest));
  } else {
    GPU_CHECK(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking));
  }
  handle_ = s;
}

Stream::~Stream() {
  if (handle_) (void)gpuStreamDestroy(static_cast<gpuStream_t>(handle_));
}

void Stream::synchronize() {
  GPU_CHECK(gpuStreamSynchronize(static_cast<gpuStream_t>(handle_)));
}

Event::Event() {
  gpuEvent_t e = nullptr;
  GPU_CHECK(gpuEventCreateWithFlags(&e, gpuEventDisableTiming));
  handle_ = e;
}

Event::~Event() {
  if (handle_) (void)gpuEventDestroy(static_cast<gpuEvent_t>(handle_));
}

void Event::record(Stream& stream) {
  GPU_CHECK(gpuEventRecord(static_cast<gpuEvent_t>(handle_), native(stream)));
}

void Event::make_wait(Stream& stream) const {
  GPU_CHECK(gpuStreamWaitEvent(native(stream), static_cast<gpuEvent_t>(handle_), 0));
}

void Event::synchronize() const {
  GPU_CHECK(gpuEventSynchronize(static_cast<gpuEvent_t>(handle_)));
}

void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream& stream) {
  GPU_CHECK(gpuMemcpyAsync(dst, src, bytes, gpuMemcpyHostToDevice, native(stream)));
}

void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream& stream) {
  GPU_CHECK(gpuMemcpyAsync(dst, src, bytes, gpuMemcpyDeviceToHost, native(stream)));
}

void fill_device(void* dst, unsigned char value, std::size_t bytes, Stream& stream) {
  GPU_CHECK(gpuMemsetAsync(dst, value, bytes, native(stream)));
}

namespace {

// memcpy on `threads` threads, each taking one contiguous part (so each
// faults in its own destination pages).
void parallel_memcpy(void* dst, const void* src, std::size_t bytes, unsigned threads) {
  const std::size_t parts = std::clamp<std::size_t>(threads, 1, bytes >> 20 | 1);
  const std::size_t part = (bytes + parts - 1) / parts;
  std::vector<std::thread> workers;
  for (std::size_t p = 1; p < parts; ++p) {
    const std::size_t begin = p * part;
    if (begin >= bytes) break;
    workers.emplace_back([=] {
      std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                  std::min(part, bytes - begin));
    });
  }
  std::memcpy(dst, src, std::min(part, bytes));
  for (std::thread& w : workers) w.join();
}

constexpr std::size_t kStagingBlock = std::size_t{64} << 20;
constexpr std::size_t kStagedCopyInBytes = std::size_t{256} << 20;

// Two pinned blocks for the staged copies below, with the events of the
// device that was current when they were made.
struct Staging {
  Staging() : resource(pinned_resource()) {
    GPU_CHECK(gpuGetDevice(&device));
    for (void*& b : block) b = resource->allocate(kStagingBlock, 4096);
  }
  ~Staging() {
    for (void* b : block) resource->deallocate(b, kStagingBlock, 4096);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  std::pmr::memory_resource* resource;
  int device = 0;
  void* block[2] = {nullptr, nullptr};
  Event done[2];  // the device's copy of each block
};

// Pinning 128 MiB costs 50 to 80 ms on the H100 machine (run 25), and a
// run makes several staged copies (bwt: the rows and the samples out, the
// text in when large), so the blocks of a finished copy are kept for the
// next one, and prepare_staged_copies() pins the first on a thread of its
// own while the device works. A copy that fails drops its blocks instead:
// the device may still be using them. The pool is never destroyed: at exit
// the runtime may already be gone, and the process's end frees pinned
// memory anyway. Blocks carry events of the device they were made on, so
// each copy takes blocks of the current device (several GPU workers copy at
// once, each on its own device).
class StagingPool {
 public:
  // Blocks of the current device from the pool, waiting for any being
  // pinned in the background.
  std::unique_ptr<Staging> acquire() {
    int device = 0;
    GPU_CHECK(gpuGetDevice(&device));
    {
      std::unique_lock lock(mutex_);
      const auto idle_here = [&] {
        return std::find_if(idle_.begin(), idle_.end(),
                            [&](const auto& staging) { return staging->device == device; });
      };
      pinned_.wait(lock, [&] { return idle_here() != idle_.end() || preparing_ == 0; });
      if (const auto found = idle_here(); found != idle_.end()) {
        std::unique_ptr<Staging> staging = std::move(*found);
        idle_.erase(found);
        return staging;
      }
    }
    return std::make_unique<Staging>();
  }
  void release(std::unique_ptr<Staging> staging) {
    {
      const std::lock_guard lock(mutex_);
      idle_.push_back(std::move(staging));
    }
    pinned_.notify_all();
  }
  // Pins one more set of blocks on a background thread (on the caller's
  // current device); a failure there only means a later copy pins its own.
  void prepare_in_background() {
    int device = 0;
    GPU_CHECK(gpuGetDevice(&device));
    {
      const std::lock_guard lock(mutex_);
      ++preparing_;
    }
    std::thread([this, device] {
      std::unique_ptr<Staging> staging;
      try {
        if (gpuSetDevice(device) == gpuSuccess) staging = std::make_unique<Staging>();
      } catch (...) {  // out of pinned memory: nothing kept
      }
      {
        const std::lock_guard lock(mutex_);
        --preparing_;
        if (staging) idle_.push_back(std::move(staging));
      }
      pinned_.notify_all();
    }).detach();
  }

 private:
  std::mutex mutex_;
  std::condition_variable pinned_;
  std::vector<std::unique_ptr<Staging>> idle_;
  int preparing_ = 0;
};

StagingPool& staging_pool() {
  static auto* pool = new StagingPool;
  return *pool;
}

std::size_t block_length(std::size_t bytes, std::size_t k) {
  return std::min(kStagingBlock, bytes - k * kStagingBlock);
}

}  // namespace

void copy_to_pageable_host(void* dst, const void* src, std::size_t bytes, Stream& stream,
                           unsigned threads) {
  if (bytes <= kStagingBlock / 4) {  // a staging pipeline does not pay for itself
    copy_to_host(dst, src, bytes, stream);
    stream.synchronize();
    return;
  }
  std::unique_ptr<Staging> leased = staging_pool().acquire();
  Staging& staging = *leased;
  const std::size_t blocks = (bytes + kStagingBlock - 1) / kStagingBlock;
  auto drain = [&](std::size_t k) {  // block k from staging to dst, once the device filled it
    staging.done[k % 2].synchronize();
    parallel_memcpy(static_cast<char*>(dst) + k * kStagingBlock, staging.block[k % 2],
                    block_length(bytes, k), threads);
  };
  // The device fills block k while the host drains block k - 1 from the
  // other staging block.
  for (std::size_t k = 0; k < blocks; ++k) {
    copy_to_host(staging.block[k % 2], static_cast<const char*>(src) + k * kStagingBlock,
                 block_length(bytes, k), stream);
    staging.done[k % 2].record(stream);
    if (k > 0) drain(k - 1);
  }
  drain(blocks - 1);
  staging_pool().release(std::move(leased));
}

void prepare_staged_copies() {
  staging_pool().prepare_in_background();
}

void copy_produced_to_device(
    void* dst, std::size_t bytes, Stream& stream,
    const std::function<void(std::size_t offset, void* block, std::size_t length)>& produce) {
  if (bytes == 0) return;
  std::unique_ptr<Staging> leased = staging_pool().acquire();
  Staging& staging = *leased;
  try {
    const std::size_t blocks = (bytes + kStagingBlock - 1) / kStagingBlock;
    // The host fills block k while the device reads block k - 1 from the
    // other staging block; a block is refilled once the device has read it.
    for (std::size_t k = 0; k < blocks; ++k) {
      if (k >= 2) staging.done[k % 2].synchronize();
      const std::size_t offset = k * kStagingBlock, length = block_length(bytes, k);
      produce(offset, staging.block[k % 2], length);
      copy_to_device(static_cast<char*>(dst) + offset, staging.block[k % 2], length, stream);
      staging.done[k % 2].record(stream);
    }
    stream.synchronize();
  } catch (...) {
    // The device may still be reading a block: keep them pinned (the run
    // ends with this error anyway).
    (void)leased.release();
    throw;
  }
  staging_pool().release(std::move(leased));
}

void copy_from_pageable_host(void* dst, const void* src, std::size_t bytes, Stream& stream,
                             unsigned threads, StagedFrom from) {
  // Below 256 MiB the runtime's own staging of pageable memory (about 2 GB/s
  // on the H200 machine, run 25) costs less than waiting for blocks to be
  // pinned (50 to 80 ms); blocks pinned in advance pay from a quarter block.
  if (bytes < (from == StagedFrom::large ? kStagedCopyInBytes : kStagingBlock / 4)) {
    copy_to_device(dst, src, bytes, stream);
    stream.synchronize();
    return;
  }
  copy_produced_to_device(
      dst, bytes, stream, [&](std::size_t offset, void* block, std::size_t length) {
        parallel_memcpy(block, static_cast<const char*>(src) + offset, length, threads);
      });
}

}  // namespace seqfuse::gpu
