// fastp's duplication estimate on the device (duplication_estimate.hpp).
//
// Floors for 4 M pairs of 150 bp: the sums read each base once (1.2 GB in
// device memory, already there for trimming: under 1 ms at 3 TB/s) at two
// lookups and a multiply-add a base; the bits are 4 M random 8-byte
// atomics into 512 MiB, a few ms at the L2's atomic rate. Noise beside the
// chunk's copies, if the kernel is not latency-bound: one thread a pair
// walked 300 bases with dependent loads while the chunk's lane waited (run
// 35c: workers' waits for a lane went from 1.5 to 2.4 thread-seconds).
#include <cstdint>

// First: HIP's __host__ and __device__ (nvcc knows them).
#include "gpu/vendor.cuh"

#include "gpu/preprocess/duplication_estimate.hpp"

namespace seqfuse::gpu::preprocess {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;  // a read (pair) to 32 lanes; 64-lane warps take two
constexpr int kReadsPerBlock = kThreads / kWarp;

// The host's Duplication::fastp_sum, a lane's share: position p (from
// `offset`) adds primes[p % 4096] x (weight + p), modulo 2^64, for the
// positions lane, lane + 32, ...; the shares are added by the caller.
__device__ unsigned long long fastp_sum_share(const char* seq, std::uint32_t length,
                                              unsigned long long offset, unsigned lane,
                                              const DuplicationTable& t) {
  unsigned long long sum = 0;
  for (std::uint32_t i = lane; i < length; i += kWarp) {
    const unsigned long long p = offset + i;
    sum += t.primes[p & (kDuplicationPrimes - 1)] *
           (t.weights[static_cast<unsigned char>(seq[i])] + p);
  }
  return sum;
}

// Sets the sum's bit where `valid` and counts the block's reads and
// duplicates (a bit already set) into the table's counts.
__device__ void set_and_count(const DuplicationTable& t, bool valid, unsigned long long sum) {
  bool duplicate = false;
  if (valid) {
    const unsigned long long bit = sum & t.bit_mask;
    const unsigned long long mask = 1ULL << (bit & 63);
    duplicate = (atomicOr(t.bits + (bit >> 6), mask) & mask) != 0;
  }
  const int reads = __syncthreads_count(valid);
  const int duplicates = __syncthreads_count(duplicate);
  if (threadIdx.x == 0) {
    atomicAdd(t.counts, static_cast<unsigned long long>(reads));
    atomicAdd(t.counts + 1, static_cast<unsigned long long>(duplicates));
  }
}

// A group of 32 threads a read (pair): the sum is a reduction over its
// bases, so its 300 or so terms take ~10 steps a thread instead of 300 in
// one (the chunk's lane waits for this kernel). The shares meet in shared
// memory (portable to 64-lane warps, unlike 32-lane shuffles).
__global__ void estimate_chunk(const char* __restrict__ text0, const char* __restrict__ text1,
                               const DeviceRecord* __restrict__ record0,
                               const DeviceRecord* __restrict__ record1, std::size_t records,
                               DuplicationTable t) {
  __shared__ unsigned long long shares[kThreads];
  const unsigned lane = threadIdx.x % kWarp, slot = threadIdx.x / kWarp;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kReadsPerBlock + slot;
  unsigned long long share = 0;
  if (i < records) {
    const DeviceRecord r = record0[i];
    share = fastp_sum_share(text0 + r.seq, r.length, 0, lane, t);
    if (record1 != nullptr) {
      const DeviceRecord mate = record1[i];
      share += fastp_sum_share(text1 + mate.seq, mate.length, r.length, lane, t);
    }
  }
  shares[threadIdx.x] = share;
  __syncthreads();
  for (unsigned half = kWarp / 2; half > 0; half /= 2) {
    if (lane < half) shares[threadIdx.x] += shares[threadIdx.x + half];
    __syncthreads();
  }
  set_and_count(t, lane == 0 && i < records, shares[threadIdx.x]);
}

__global__ void estimate_sums(const unsigned long long* __restrict__ sums, std::size_t count,
                              DuplicationTable t) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  set_and_count(t, i < count, i < count ? sums[i] : 0);
}

bool usable(const DuplicationTable& t) {
  return t.primes != nullptr && t.weights != nullptr && t.bits != nullptr && t.counts != nullptr;
}

unsigned blocks_for(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

}  // namespace

Status estimate_duplicates(const TrimChunkBuffers& b, const DuplicationTable& table,
                           Stream& stream) {
  if (!usable(table) || b.text[0] == nullptr || b.record[0] == nullptr ||
      (b.paired && (b.text[1] == nullptr || b.record[1] == nullptr)))
    return Status::kNullBuffer;
  if (b.records == 0) return Status::kSuccess;
  if (b.records > 0xffffffffu || (table.bit_mask & (table.bit_mask + 1)) != 0)
    return Status::kInvalidSize;
  auto s = static_cast<gpuStream_t>(stream.native());
  const auto blocks = static_cast<unsigned>((b.records + kReadsPerBlock - 1) / kReadsPerBlock);
  estimate_chunk<<<blocks, kThreads, 0, s>>>(b.text[0], b.text[1], b.record[0],
                                             b.paired ? b.record[1] : nullptr, b.records, table);
  GPU_CHECK_LAUNCH();
  return Status::kSuccess;
}

Status estimate_duplicate_sums(const unsigned long long* sums, std::size_t count,
                               const DuplicationTable& table, Stream& stream) {
  if (!usable(table) || (sums == nullptr && count > 0)) return Status::kNullBuffer;
  if (count == 0) return Status::kSuccess;
  if (count > 0xffffffffu || (table.bit_mask & (table.bit_mask + 1)) != 0)
    return Status::kInvalidSize;
  auto s = static_cast<gpuStream_t>(stream.native());
  estimate_sums<<<blocks_for(count), kThreads, 0, s>>>(sums, count, table);
  GPU_CHECK_LAUNCH();
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::preprocess
