#include "gpu/vendor.cuh"

// The checked entry point of gpu/bwt: validates the request and picks the
// one-pass sort when it fits the device, the bucketed one otherwise.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>

#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/multi_sort.hpp"
#include "gpu/bwt/sort_paths.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/error.hpp"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::gpu::bwt {

namespace {

__global__ void invalid_codes_kernel(const std::uint8_t* text, std::uint64_t n, unsigned* found) {
  const std::uint64_t i = thread_index();
  if (i < n && text[i] > 3) *found = 1;
}

// Whether any of the n codes on the device is above 3 (one wait).
bool has_invalid_code(const std::uint8_t* text, std::uint64_t n, Stream& stream) {
  DeviceBuffer found(sizeof(unsigned));
  fill_device(found.data(), 0, found.size(), stream);
  invalid_codes_kernel<<<blocks_for(n), kThreads, 0, static_cast<gpuStream_t>(stream.native())>>>(
      text, n, found.as<unsigned>());
  GPU_CHECK_LAUNCH();
  unsigned host = 0;
  copy_to_host(&host, found.data(), sizeof host, stream);
  stream.synchronize();
  return host != 0;
}

// text[i] for i < length from the packed bytes; with both strands also
// text[2 length - 1 - i], the complement (3 - code).
__global__ void unpack_kernel(const std::uint8_t* packed, std::uint64_t length, bool both_strands,
                              std::uint8_t* text) {
  const std::uint64_t i = thread_index();
  if (i >= length) return;
  const auto code = static_cast<std::uint8_t>((packed[i / 4] >> (6 - 2 * (i % 4))) & 3u);
  text[i] = code;
  if (both_strands) text[2 * length - 1 - i] = static_cast<std::uint8_t>(3u - code);
}

// Whether out's spans fit a text of n codes at out.interval.
bool fits(std::uint64_t n, const SortOutput& out) {
  if (out.interval == 0 || !std::has_single_bit(out.interval)) return false;
  return out.bwt.size() == n + 1 && out.samples.size() == n / out.interval + 1;
}

// The rows of the text `codes` (n of them, on the device, checked).
void sort_on_device(const std::uint8_t* codes, std::uint64_t n, const SortOutput& out,
                    const SortPlan& plan, Stream& stream) {
  const bool one_pass = plan.bucket_suffixes == 0 && n + 1 < (std::uint64_t{1} << 32) &&
                        one_pass_device_bytes(n) - n <= free_device_memory();
  if (one_pass)
    sort_one_pass(codes, n, out, stream);
  else
    sort_in_buckets(codes, n, out, plan.bucket_suffixes, stream);
}

// The rows of the empty text: the '$' suffix alone.
void sentinel_only(const SortOutput& out) {
  out.bwt[0] = kSentinelCode;
  out.samples[0] = 0;
}

}  // namespace

Status sort_suffixes(std::span<const std::uint8_t> text, const SortOutput& out,
                     const SortPlan& plan) {
  const std::uint64_t n = text.size();
  if (!fits(n, out)) return Status::kInvalidSize;
  if (n == 0) {
    sentinel_only(out);
    return Status::kSuccess;
  }
  Stream stream;
  // The text goes to the device first and is checked there: a host scan of
  // a human genome's 6.2 G codes on one thread costs seconds.
  DeviceBuffer device_text(n);
  copy_from_pageable_host(device_text.data(), text.data(), n, stream, out.host_threads);
  const auto* codes = device_text.as<std::uint8_t>();
  if (has_invalid_code(codes, n, stream)) return Status::kInvalidArgument;
  trace("bwt gpu: text on the device");
  sort_on_device(codes, n, out, plan, stream);
  return Status::kSuccess;
}

Status sort_suffixes(const PackedCodes& text, const SortOutput& out, const SortPlan& plan) {
  const std::uint64_t n = (text.both_strands ? 2 : 1) * text.length;
  const std::uint64_t packed_bytes = (text.length + 3) / 4;
  if (!fits(n, out) || text.bytes.size() < packed_bytes) return Status::kInvalidSize;
  if (n == 0) {
    sentinel_only(out);
    return Status::kSuccess;
  }
  Stream stream;
  DeviceBuffer device_text(n);
  {
    DeviceBuffer packed(packed_bytes);
    copy_from_pageable_host(packed.data(), text.bytes.data(), packed_bytes, stream,
                            out.host_threads);
    unpack_kernel<<<blocks_for(text.length), kThreads, 0,
                    static_cast<gpuStream_t>(stream.native())>>>(
        packed.as<std::uint8_t>(), text.length, text.both_strands, device_text.as<std::uint8_t>());
    GPU_CHECK_LAUNCH();
    stream.synchronize();  // before `packed` is freed
  }
  trace("bwt gpu: text unpacked on the device");
  sort_on_device(device_text.as<std::uint8_t>(), n, out, plan, stream);
  return Status::kSuccess;
}

DeviceText::DeviceText(const PackedCodes& text, unsigned host_threads)
    : n_((text.both_strands ? 2 : 1) * text.length) {
  const std::uint64_t packed_bytes = (text.length + 3) / 4;
  if (text.bytes.size() < packed_bytes)
    throw Error("suffix sort: " + std::to_string(text.bytes.size()) + " packed bytes for " +
                std::to_string(text.length) + " codes");
  codes_ = DeviceBuffer(std::max<std::uint64_t>(n_, 1));
  if (text.length == 0) return;
  Stream stream;
  DeviceBuffer packed(packed_bytes);
  copy_from_pageable_host(packed.data(), text.bytes.data(), packed_bytes, stream, host_threads);
  unpack_kernel<<<blocks_for(text.length), kThreads, 0,
                  static_cast<gpuStream_t>(stream.native())>>>(
      packed.as<std::uint8_t>(), text.length, text.both_strands, codes_.as<std::uint8_t>());
  GPU_CHECK_LAUNCH();
  stream.synchronize();  // before `packed` is freed
}

DeviceText::DeviceText(const DeviceText& source, int source_device)
    : codes_(std::max<std::uint64_t>(source.n_, 1)), n_(source.n_) {
  if (n_ == 0) return;
  Stream stream;
  GPU_CHECK(gpuMemcpyPeerAsync(codes_.data(), current_device(), source.codes_.data(), source_device,
                               n_, static_cast<gpuStream_t>(stream.native())));
  stream.synchronize();
}

bool one_pass_fits(std::uint64_t n) {
  return n + 1 < (std::uint64_t{1} << 32) && one_pass_device_bytes(n) <= free_device_memory();
}

}  // namespace seqfuse::gpu::bwt
