#include "gpu/vendor.cuh"

// The checked entry point of gpu/bwt: validates the request and picks the
// one-pass sort when it fits the device, the bucketed one otherwise.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>

#include "gpu/bwt/sort_paths.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::gpu::bwt {

Status sort_suffixes(std::span<const std::uint8_t> text, const SortOutput& out,
                     const SortPlan& plan) {
  const std::uint64_t n = text.size();
  if (out.interval == 0 || !std::has_single_bit(out.interval)) return Status::kInvalidSize;
  if (out.bwt.size() != n + 1 || out.samples.size() != n / out.interval + 1)
    return Status::kInvalidSize;
  if (std::any_of(text.begin(), text.end(), [](std::uint8_t c) { return c > 3; }))
    return Status::kInvalidArgument;
  if (n == 0) {  // the '$' suffix alone
    out.bwt[0] = kSentinelCode;
    out.samples[0] = 0;
    return Status::kSuccess;
  }
  Stream stream;
  const bool one_pass = plan.bucket_suffixes == 0 && n + 1 < (std::uint64_t{1} << 32) &&
                        one_pass_device_bytes(n) <= free_device_memory();
  if (one_pass)
    sort_one_pass(text, out, stream);
  else
    sort_in_buckets(text, out, plan.bucket_suffixes, stream);
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::bwt
