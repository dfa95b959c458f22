// Device buffers, pinned host memory and streams.
#include <string>
#include <utility>

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
    throw OutOfMemory("device out of memory: requested " + mib(bytes) + ", " +
                            mib(free_bytes) + " free of " + mib(total_bytes));
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

Stream::Stream() {
  gpuStream_t s = nullptr;
  GPU_CHECK(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking));
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

}  // namespace seqfuse::gpu
