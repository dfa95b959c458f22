#include "gpu/vendor.cuh"

// The checked entry point of gpu/bwt: validates the request and picks the
// one-pass sort when it fits the device, the bucketed one otherwise.
#include <bit>
#include <cstdint>
#include <span>

#include "gpu/bwt/launch.cuh"
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

}  // namespace

Status sort_suffixes(std::span<const std::uint8_t> text, const SortOutput& out,
                     const SortPlan& plan) {
  const std::uint64_t n = text.size();
  if (out.interval == 0 || !std::has_single_bit(out.interval)) return Status::kInvalidSize;
  if (out.bwt.size() != n + 1 || out.samples.size() != n / out.interval + 1)
    return Status::kInvalidSize;
  if (n == 0) {  // the '$' suffix alone
    out.bwt[0] = kSentinelCode;
    out.samples[0] = 0;
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
  const bool one_pass = plan.bucket_suffixes == 0 && n + 1 < (std::uint64_t{1} << 32) &&
                        one_pass_device_bytes(n) - n <= free_device_memory();
  if (one_pass)
    sort_one_pass(codes, n, out, stream);
  else
    sort_in_buckets(codes, n, out, plan.bucket_suffixes, stream);
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::bwt
