#include <algorithm>
#include <cstdint>
#include <limits>

#include "gpu/primitives/device_sort.cuh"
#include "gpu/primitives/kmer_code.hpp"
#include "gpu/vendor.cuh"
#include "gpu/kmer/count_kmers.hpp"

namespace seqfuse::gpu {
namespace {

using kmer::Kmer;
using kmer::KmerRoller;

// Each thread owns this many consecutive end positions. It first re-reads
// the k-1 bases before its span (at most 62, so the re-read costs under 3x
// for k = 31 with spans of 32, and far less of the run time than the sort).
constexpr int kSpan = 32;
constexpr int kThreads = 256;

// Index of the record holding base `pos`: the last r with offsets[r] <= pos.
__device__ std::size_t record_of(const std::uint64_t* offsets, std::size_t records,
                                 std::size_t pos) {
  std::size_t lo = 0, hi = records;  // offsets[lo] <= pos < offsets[hi]
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= pos)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

template <int W>
__device__ Kmer<W> chosen_strand(const KmerRoller<W>& roller, bool canonical) {
  return canonical ? roller.canonical() : roller.forward();
}

template <int W>
__device__ bool in_key_range(const Kmer<W>& x, const KmerExtraction& job) {
  Kmer<W> from, to;
  for (int i = 0; i < W; ++i) {
    from.w[i] = job.key_from[i];
    to.w[i] = job.key_to[i];
  }
  return !(x < from) && (job.key_to_end || x < to);
}

// The lanes of a warp step through their spans together; at each step the
// valid k-mers of the warp take consecutive slots from one atomicAdd. Slots
// from `room` on are counted but not written (see extract_kmers). Ranged:
// only k-mers in the job's key range are valid (a multi-device count); the
// one-device count runs the kernel without that test.
template <int W, bool Ranged>
__global__ void extract_kmers_kernel(KmerExtraction job, KmerColumns out, std::size_t room,
                                     unsigned long long* count) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t first = job.end_from + thread * kSpan;
  const int lane = threadIdx.x % warp_size();

  KmerRoller<W> roller(job.k);
  std::size_t record = 0, record_end = 0;
  if (first < job.end_to) {
    record = record_of(job.offsets, job.records, first);
    record_end = job.offsets[record + 1];
    const std::size_t back = static_cast<std::size_t>(job.k - 1);
    const std::size_t record_start = job.offsets[record];
    const std::size_t warm_from = first - record_start > back ? first - back : record_start;
    for (std::size_t p = warm_from; p < first; ++p) roller.push_letter(job.bases[p]);
  }

  for (int step = 0; step < kSpan; ++step) {
    const std::size_t p = first + step;
    bool valid = false;
    if (p < job.end_to) {
      if (p >= record_end) {  // the span crossed into a later record
        while (p >= job.offsets[record + 1]) ++record;
        record_end = job.offsets[record + 1];
        roller.clear();
      }
      valid = roller.push_letter(job.bases[p]);
      if constexpr (Ranged)
        valid = valid && in_key_range(chosen_strand(roller, job.canonical), job);
    }
    const lane_mask_t voters = warp_ballot(valid);
    if (voters == 0) continue;
    unsigned long long base = 0;
    if (lane == 0) base = atomicAdd(count, static_cast<unsigned long long>(lane_count(voters)));
    base = warp_broadcast(base, 0);
    const std::size_t slot = base + lane_count(voters & lanes_below());
    if (valid && slot < room) {
      const Kmer<W> x = chosen_strand(roller, job.canonical);
      out.high[slot] = x.w[0];
      if constexpr (W == 2) out.low[slot] = x.w[1];
    }
  }
}

template <int W>
__device__ bool differs_from_previous(KmerColumns sorted, std::size_t i) {
  if (i == 0) return true;
  if (sorted.high[i] != sorted.high[i - 1]) return true;
  if constexpr (W == 2) return sorted.low[i] != sorted.low[i - 1];
  return false;
}

template <int W>
__global__ void mark_run_heads(KmerColumns sorted, std::size_t n, std::uint32_t* heads) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) heads[i] = differs_from_previous<W>(sorted, i) ? 1u : 0u;
}

// Each run head writes its k-mer and its start index (into `starts`, which
// reuses the head-flag buffer: flags are recomputed from the keys).
template <int W>
__global__ void write_run_heads(KmerColumns sorted, std::size_t n, const std::uint32_t* ranks,
                                std::uint64_t* unique_words, std::uint32_t* starts) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || !differs_from_previous<W>(sorted, i)) return;
  const std::uint32_t run = ranks[i];
  unique_words[static_cast<std::size_t>(run) * W] = sorted.high[i];
  if constexpr (W == 2) unique_words[static_cast<std::size_t>(run) * W + 1] = sorted.low[i];
  starts[run] = static_cast<std::uint32_t>(i);
}

// The last element of each run writes its run's count. ranks[i] counts the
// heads before i: for a head that is its own run index; any other element
// has its own head among them, so its run is one less.
template <int W>
__global__ void write_run_counts(KmerColumns sorted, std::size_t n, const std::uint32_t* ranks,
                                 const std::uint32_t* starts, std::uint32_t* counts) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i + 1 < n && !differs_from_previous<W>(sorted, i + 1)) return;
  const std::uint32_t run = differs_from_previous<W>(sorted, i) ? ranks[i] : ranks[i] - 1;
  counts[run] = static_cast<std::uint32_t>(i + 1) - starts[run];
}

unsigned blocks_for(std::size_t items, std::size_t per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

template <int W>
void launch_extract(const KmerExtraction& job, KmerColumns out, std::size_t room,
                    unsigned long long* count, gpuStream_t stream) {
  const std::size_t threads = (job.end_to - job.end_from + kSpan - 1) / kSpan;
  bool whole = job.key_to_end;
  for (int i = 0; i < W; ++i) whole = whole && job.key_from[i] == 0;
  if (whole) {
    extract_kmers_kernel<W, false>
        <<<blocks_for(threads, kThreads), kThreads, 0, stream>>>(job, out, room, count);
  } else {
    extract_kmers_kernel<W, true>
        <<<blocks_for(threads, kThreads), kThreads, 0, stream>>>(job, out, room, count);
  }
  GPU_CHECK_LAUNCH();
}

template <int W>
void launch_sort_and_count(KmerColumns kmers, std::size_t n, int k, KmerSortSpace& space,
                           std::size_t& runs, gpuStream_t stream) {
  PingPong<std::uint64_t> high{kmers.high, space.alternate_high.as<std::uint64_t>()};
  if constexpr (W == 2) {
    // Least significant word first; the sort is stable, so sorting by the
    // high word afterwards leaves equal high words in low-word order.
    PingPong<std::uint64_t> low{kmers.low, space.alternate_low.as<std::uint64_t>()};
    radix_sort_pairs(low, high, n, 0, 64, space.scratch, stream);
    radix_sort_pairs(high, low, n, 0, 2 * (k - kmer::kBasesPerWord), space.scratch, stream);
    kmers = {high.current, low.current};
  } else {
    radix_sort_keys(high, n, 0, 2 * k, space.scratch, stream);
    kmers = {high.current, nullptr};
  }

  auto* heads = space.head_flags.as<std::uint32_t>();
  auto* ranks = space.run_ranks.as<std::uint32_t>();
  const unsigned blocks = blocks_for(n, kThreads);
  mark_run_heads<W><<<blocks, kThreads, 0, stream>>>(kmers, n, heads);
  GPU_CHECK_LAUNCH();
  exclusive_sum(heads, ranks, n, space.scratch, stream);
  std::uint32_t last_rank = 0, last_head = 0;
  GPU_CHECK(
      gpuMemcpyAsync(&last_rank, ranks + n - 1, sizeof last_rank, gpuMemcpyDeviceToHost, stream));
  GPU_CHECK(
      gpuMemcpyAsync(&last_head, heads + n - 1, sizeof last_head, gpuMemcpyDeviceToHost, stream));
  write_run_heads<W><<<blocks, kThreads, 0, stream>>>(
      kmers, n, ranks, space.unique_words.as<std::uint64_t>(), heads);
  GPU_CHECK_LAUNCH();
  write_run_counts<W>
      <<<blocks, kThreads, 0, stream>>>(kmers, n, ranks, heads, space.counts.as<std::uint32_t>());
  GPU_CHECK_LAUNCH();
  GPU_CHECK(gpuStreamSynchronize(stream));
  runs = static_cast<std::size_t>(last_rank) + last_head;
}

}  // namespace

Status extract_kmers(const KmerExtraction& job, KmerColumns out, std::size_t room,
                     unsigned long long* count, Stream& stream) {
  if (job.k < 1 || job.k > kmer::kMaxK) return Status::kInvalidArgument;
  if (job.end_from > job.end_to) return Status::kInvalidArgument;
  if (job.end_to == job.end_from) return Status::kSuccess;
  if (job.bases == nullptr || job.offsets == nullptr || count == nullptr || out.high == nullptr ||
      (kmer::words_for_k(job.k) == 2 && out.low == nullptr))
    return Status::kNullBuffer;
  if (job.records == 0 || room == 0) return Status::kInvalidSize;
  auto s = static_cast<gpuStream_t>(stream.native());
  if (kmer::words_for_k(job.k) == 2)
    launch_extract<2>(job, out, room, count, s);
  else
    launch_extract<1>(job, out, room, count, s);
  return Status::kSuccess;
}

KmerSortSpace::KmerSortSpace(std::size_t capacity_, int k_)
    : capacity(capacity_),
      k(k_),
      alternate_high(capacity_ * sizeof(std::uint64_t)),
      alternate_low(kmer::words_for_k(k_) == 2 ? capacity_ * sizeof(std::uint64_t) : 0),
      head_flags(capacity_ * sizeof(std::uint32_t)),
      run_ranks(capacity_ * sizeof(std::uint32_t)),
      unique_words(capacity_ * sizeof(std::uint64_t) * kmer::words_for_k(k_)),
      counts(capacity_ * sizeof(std::uint32_t)) {}

std::size_t KmerSortSpace::bytes_per_kmer(int k) {
  const std::size_t words = kmer::words_for_k(k);
  return words * 8 /*alternate*/ + 4 + 4 /*flags, ranks*/ + words * 8 /*unique*/ + 4 /*counts*/;
}

Status sort_and_count(KmerColumns kmers, std::size_t n, int k, KmerSortSpace& space,
                      std::size_t& runs, Stream& stream) {
  runs = 0;
  if (k < 1 || k > kmer::kMaxK || k != space.k) return Status::kInvalidArgument;
  if (n == 0) return Status::kSuccess;
  if (n > space.capacity || n >= std::numeric_limits<std::uint32_t>::max())
    return Status::kInvalidSize;
  if (kmers.high == nullptr || (kmer::words_for_k(k) == 2 && kmers.low == nullptr))
    return Status::kNullBuffer;
  auto s = static_cast<gpuStream_t>(stream.native());
  if (kmer::words_for_k(k) == 2)
    launch_sort_and_count<2>(kmers, n, k, space, runs, s);
  else
    launch_sort_and_count<1>(kmers, n, k, space, runs, s);
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu
