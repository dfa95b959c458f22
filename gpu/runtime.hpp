// Host-side view of the GPU layer: backend and device discovery, device
// memory, pinned host memory and streams. Plain C++ (no CUDA or HIP types),
// so src/ can include it; implemented by gpu/runtime/*.cu in GPU builds and
// by gpu/runtime/absent.cpp when the build has no GPU backend.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

namespace seqfuse::gpu {

struct BackendInfo {
  std::string name;             // "CUDA", "HIP" or "none"
  std::string runtime_version;  // e.g. "13.0"; empty when name is "none"
  std::string driver_version;   // empty when no driver is loaded
  std::string compiled_archs;   // e.g. "sm_80 sm_90a"
};

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string arch;  // "sm_90" (CUDA) or "gfx90a" (HIP)
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
  int multiprocessors = 0;
  int warp_size = 0;
};

[[nodiscard]] BackendInfo backend();
// Devices usable by this build; empty when there is no backend, no driver or
// no device. Never throws for "no device": that is an ordinary answer.
[[nodiscard]] std::vector<DeviceInfo> devices();
// How many devices the runtime sees (0 without a backend, driver or
// device). Unlike devices(), it starts no device: on a node of 8 GPUs,
// devices() starts all 8 contexts one after another (about 0.3 s each).
[[nodiscard]] int device_count();
// Device `index`'s name as the driver gives it, without starting it; empty
// when there is no such device.
[[nodiscard]] std::string device_name(int index);
// Makes `index` the current device of the calling thread.
void use_device(int index);
// Ends this process's use of device `index`: everything it holds there
// (memory, pinned host memory, streams) is freed and its context destroyed.
// Only for a process about to exit that will not touch the device again,
// and whose device objects are never destroyed (left to the exit): a thread
// can then take the teardown the exit would pay (0.13-0.15 s with 1 GiB of
// device memory and 256 MiB pinned, issue 17) while the run writes its
// reports. Errors are ignored: the exit frees it all anyway.
void end_device(int index) noexcept;
// The calling thread's current device (for handing it to a worker thread).
[[nodiscard]] int current_device();
// How host threads wait for the current device (cudaStreamSynchronize and
// the like): the runtime's own choice (auto: spin while the process has
// fewer contexts than cores), spinning, yielding, or sleeping on a
// primitive (block), which leaves the cores to the host's own threads.
enum class HostWait { automatic, spin, yield, block };
void set_host_wait(HostWait wait);
// Free memory of the calling thread's current device, in bytes.
[[nodiscard]] std::size_t free_device_memory();

// One plain device allocation, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws OutOfDeviceMemory naming the size when the device cannot hold it.
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  [[nodiscard]] void* data() const noexcept { return ptr_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Reuses freed device allocations so a batch loop allocates once. On an
// allocation failure it frees what it caches and tries once more; if that
// fails too, OutOfDeviceMemory tells the caller to shrink its batch.
class DevicePool {
 public:
  DevicePool();
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  // A buffer of at least `bytes`; give it back with release() to reuse it.
  [[nodiscard]] DeviceBuffer acquire(std::size_t bytes);
  void release(DeviceBuffer buffer);
  void trim();  // frees every cached allocation
  [[nodiscard]] std::size_t cached_bytes() const;

 private:
  // Behind a pointer: clang 15 (Debian's hipcc) crashes instantiating the
  // cache's container in device compilation when .cu files include this.
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

// Page-locked host memory, for copies that overlap kernels. Without a GPU
// backend or device it is ordinary heap memory.
[[nodiscard]] std::pmr::memory_resource* pinned_resource();

// An ordered queue of device work. Non-blocking with respect to the legacy
// default stream.
// High: the device starts this stream's waiting blocks before those of
// normal streams, so short work (uploading the next part of a search) runs
// between the blocks of a long kernel instead of after it.
enum class StreamPriority { normal, high };

class Stream {
 public:
  explicit Stream(StreamPriority priority = StreamPriority::normal);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void synchronize();
  // The vendor stream handle (gpuStream_t), for launchers in gpu/.
  [[nodiscard]] void* native() const noexcept { return handle_; }

 private:
  void* handle_ = nullptr;
};

// A point in a stream's work (timing disabled): other streams can wait for
// it on the device, the host can wait for it without draining the stream.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(Stream& stream);
  // Work queued on `stream` from now on starts after the recorded point.
  void make_wait(Stream& stream) const;
  void synchronize() const;  // the host waits for the recorded point

 private:
  void* handle_ = nullptr;
};

void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream& stream);
void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream& stream);
void fill_device(void* dst, unsigned char value, std::size_t bytes, Stream& stream);
// A large copy into ordinary host memory that may not be touched yet (a
// fresh array of gigabytes): a plain copy there runs at the rate one thread
// faults pages in (about 1 GB/s, run 23a). This one goes through two pinned
// staging blocks, `threads` host threads copying one out while the device
// fills the other. Waits for the copy.
void copy_to_pageable_host(void* dst, const void* src, std::size_t bytes, Stream& stream,
                           unsigned threads);
// The other way: a large copy from ordinary host memory through the same
// two staging blocks, `threads` host threads filling one while the device
// reads the other. `from` says which copies are large enough: by default
// 256 MiB or more (a caller that may wait for the blocks to be pinned);
// StagedFrom::prepared: 16 MiB or more, for callers that called
// prepare_staged_copies() earlier. Smaller ones go directly. Waits for the
// copy.
enum class StagedFrom { large, prepared };
void copy_from_pageable_host(void* dst, const void* src, std::size_t bytes, Stream& stream,
                             unsigned threads, StagedFrom from = StagedFrom::large);
// A large upload of bytes the host makes as it goes (weights converted to
// their device type): produce(offset, block, length) writes bytes [offset,
// offset + length) of the copy into a pinned staging block, which the
// device copies to dst + offset while the host produces the next block.
// Waits for the copy.
void copy_produced_to_device(
    void* dst, std::size_t bytes, Stream& stream,
    const std::function<void(std::size_t offset, void* block, std::size_t length)>& produce);
// Starts pinning the staging blocks of the copies above on a thread of
// its own (it takes tens of milliseconds) and returns: call it once the
// device is chosen, and the copy that needs them later waits for them.
void prepare_staged_copies();

}  // namespace seqfuse::gpu
