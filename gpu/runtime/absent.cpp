// The GPU layer of a build without a GPU backend: no devices, so every
// --device auto run takes the CPU engine. Device memory cannot be had.
#include "gpu/error.hpp"
#include "gpu/runtime.hpp"

#include <utility>

namespace seqfuse::gpu {
namespace {
[[noreturn]] void no_backend() {
  throw Error("this seqfuse was built without a GPU backend (CUDA or HIP)");
}
}  // namespace

BackendInfo backend() {
  return {"none", "", "", ""};
}
std::vector<DeviceInfo> devices() {
  return {};
}
int device_count() {
  return 0;
}
std::string device_name(int) {
  return {};
}
void use_device(int) {
  no_backend();
}
void end_device(int) noexcept {}
void set_host_wait(HostWait) {}
int current_device() {
  no_backend();
}
std::size_t free_device_memory() {
  return 0;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes != 0) no_backend();
}
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  ptr_ = std::exchange(other.ptr_, nullptr);
  bytes_ = std::exchange(other.bytes_, 0);
  return *this;
}

std::pmr::memory_resource* pinned_resource() {
  return std::pmr::new_delete_resource();
}

Stream::Stream(StreamPriority) {
  no_backend();
}
Stream::~Stream() = default;
void Stream::synchronize() {}

Event::Event() {
  no_backend();
}
Event::~Event() = default;
void Event::record(Stream&) {}
void Event::make_wait(Stream&) const {}
void Event::synchronize() const {}

void copy_to_device(void*, const void*, std::size_t, Stream&) {
  no_backend();
}
void copy_to_host(void*, const void*, std::size_t, Stream&) {
  no_backend();
}
void fill_device(void*, unsigned char, std::size_t, Stream&) {
  no_backend();
}
void copy_to_pageable_host(void*, const void*, std::size_t, Stream&, unsigned) {
  no_backend();
}
void copy_from_pageable_host(void*, const void*, std::size_t, Stream&, unsigned, StagedFrom) {
  no_backend();
}
void copy_produced_to_device(void*, std::size_t, Stream&,
                             const std::function<void(std::size_t, void*, std::size_t)>&) {
  no_backend();
}
void prepare_staged_copies() {
  no_backend();
}

}  // namespace seqfuse::gpu
