#include "gpu/vendor.cuh"

// The bucketed suffix sort: texts with 2^32 suffixes or more, or too many to
// sort at once on the device. The arithmetic and the proof of the order are
// in bucket_keys.hpp; a CPU emulation test runs the same steps.
//
// The text (1 byte a code) and a rank per suffix (8 bytes) stay on the
// device. One pass counts the suffixes of each bin (the first kBinChars
// characters); the host groups bins into buckets that fit; then each bucket
// is collected from the text, sorted by its first 21 characters, deepened
// by at most kBucketRounds windows of 21 over the suffixes still tied, and
// its ranks written; the suffixes still tied after that go to a list on the
// host. tied_doubling.cu sorts them by prefix doubling over every bucket's
// ranks; then the rows (BWT codes, SA samples) come out of the ranks.
//
// Floors, per suffix of a bucket (B = 80 bytes of device memory each):
//   collect    the text scanned once per bucket in slices (1 B a position
//              per bucket: n x buckets bytes in all), key + position out 16
//   round 0    8 radix passes of a 63-bit key + 8-byte position: 8 x 32 = 256
//   heads      neighbours compared (about 20 B of text), flags, sums     40
//   ranks      position in 8, rank scattered 32 (a sector)               40
//   rows out   rank in 8, text[i - 1] 1, code scattered 32 (a sector)    41
// about 400 bytes a suffix: 6.2 G suffixes move 2.5 TB, 0.74 s at 3.35 TB/s,
// plus the window rounds over tied suffixes (about 300 bytes each a round)
// and the doubling of the tied list (tied_doubling.cu), plus PCIe: 1 byte a
// row and 8 a sample back (6.2 GB + 1.6 GB for a human genome's two strands
// at interval 32: 0.3 s at 25 GB/s).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpu/bwt/bucket_keys.hpp"
#include "gpu/bwt/group_kernels.cuh"
#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/multi_sort.hpp"
#include "gpu/bwt/row_output.cuh"
#include "gpu/bwt/sort_paths.hpp"
#include "gpu/bwt/tied_doubling.hpp"
#include "gpu/error.hpp"
#include "gpu/primitives/device_sort.cuh"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::gpu::bwt {
namespace {

// Device bytes a bucket suffix takes: positions and keys, both ping-pong
// (32), slot lists ping-pong (8), group labels (4), the deepening sort's
// indices and labels, ping-pong (16), and a margin for the sorts' scratch;
// as much as a chunk entry of the tied doubling, which reuses the memory.
constexpr std::uint64_t kBytesPerBucketSuffix = kBytesPerChunkEntry;
constexpr std::uint64_t kReserve = std::uint64_t{1} << 30;  // scratch, counts, runtime
// Radix sorts take a 32-bit count; scans and slot indices are 32-bit too.
constexpr std::uint64_t kMaxBucket = (std::uint64_t{1} << 31) - 1;
constexpr std::uint64_t kMaxSlice = std::uint64_t{1} << 30;

__global__ void bin_counts_kernel(const std::uint8_t* text, std::uint64_t n,
                                  unsigned long long* counts) {
  const std::uint64_t i = thread_index();
  if (i <= n) atomicAdd(&counts[bucket_bin(text, n, i)], 1ull);
}

__global__ void in_bucket_kernel(const std::uint8_t* text, std::uint64_t n, std::uint64_t first,
                                 std::uint64_t count, std::uint32_t first_bin,
                                 std::uint32_t end_bin, std::uint32_t* flags) {
  const std::uint64_t t = thread_index();
  if (t >= count) return;
  const std::uint32_t bin = bucket_bin(text, n, first + t);
  flags[t] = bin >= first_bin && bin < end_bin ? 1u : 0u;
}

__global__ void collect_kernel(const std::uint8_t* text, std::uint64_t n, std::uint64_t first,
                               std::uint64_t count, const std::uint32_t* flags,
                               const std::uint32_t* before, std::uint64_t* positions,
                               std::uint64_t* keys) {
  const std::uint64_t t = thread_index();
  if (t >= count || flags[t] == 0) return;
  const std::uint64_t i = first + t;
  positions[before[t]] = i;
  keys[before[t]] = initial_key(text, n, i);
}

__global__ void first_heads_kernel(const std::uint64_t* sorted_keys, std::uint64_t count,
                                   std::uint32_t* heads) {
  const std::uint64_t t = thread_index();
  if (t < count) heads[t] = group_head(sorted_keys, t);
}

// The suffixes still tied, with their slots (rows in the bucket) and group
// labels; slots_in null means slot t (round 0).
__global__ void compact_tied_kernel(const std::uint32_t* heads, const std::uint32_t* heads_before,
                                    const std::uint32_t* tied, const std::uint32_t* tied_before,
                                    const std::uint32_t* slots_in, std::uint64_t count,
                                    std::uint32_t* slots_out, std::uint32_t* labels) {
  const std::uint64_t t = thread_index();
  if (t >= count || tied[t] == 0) return;
  const std::uint32_t at = tied_before[t];
  slots_out[at] = slots_in != nullptr ? slots_in[t] : static_cast<std::uint32_t>(t);
  labels[at] = heads_before[t] + heads[t] - 1u;
}

__global__ void window_keys_kernel(const std::uint8_t* text, std::uint64_t n,
                                   const std::uint64_t* order, const std::uint32_t* slots,
                                   std::uint64_t count, std::uint64_t depth,
                                   std::uint64_t* positions, std::uint64_t* keys,
                                   std::uint32_t* indices) {
  const std::uint64_t x = thread_index();
  if (x >= count) return;
  const std::uint64_t i = order[slots[x]];
  positions[x] = i;
  keys[x] = window_key(text, n, i, depth);
  indices[x] = static_cast<std::uint32_t>(x);
}

// The tied suffixes back into their slots in (group, window) order, and
// their windows in that order for the heads.
__global__ void place_kernel(const std::uint8_t* text, std::uint64_t n,
                             const std::uint64_t* positions, const std::uint32_t* indices,
                             const std::uint32_t* slots, std::uint64_t count, std::uint64_t depth,
                             std::uint64_t* order, std::uint64_t* sorted_keys) {
  const std::uint64_t t = thread_index();
  if (t >= count) return;
  const std::uint64_t i = positions[indices[t]];
  order[slots[t]] = i;
  sorted_keys[t] = window_key(text, n, i, depth);
}

__global__ void deepening_heads_kernel(const std::uint32_t* sorted_labels,
                                       const std::uint64_t* sorted_keys, std::uint64_t count,
                                       std::uint32_t* heads) {
  const std::uint64_t t = thread_index();
  if (t < count) heads[t] = deepening_head(sorted_labels, sorted_keys, t);
}

// 1 where row t of a sorted bucket heads its group: the first row, or one
// whose suffix differs from the previous row's within kBucketDepth.
__global__ void row_heads_kernel(const std::uint8_t* text, std::uint64_t n,
                                 const std::uint64_t* order, std::uint64_t count,
                                 std::uint32_t* heads) {
  const std::uint64_t t = thread_index();
  if (t < count)
    heads[t] = t == 0 || !same_prefix(text, n, order[t - 1], order[t], kBucketDepth) ? 1u : 0u;
}

// rank[i] = the row of the head of i's group; tied flags for the list.
__global__ void bucket_ranks_kernel(const std::uint64_t* order, const std::uint32_t* heads,
                                    const std::uint32_t* heads_before, const std::uint32_t* starts,
                                    std::uint64_t count, std::uint64_t first_row,
                                    std::uint64_t* rank, std::uint32_t* tied) {
  const std::uint64_t t = thread_index();
  if (t >= count) return;
  rank[order[t]] = first_row + starts[group_of(heads, heads_before, t)];
  tied[t] = still_tied(heads, count, t);
}

// Suffixes per bin, on the device, back to the host.
std::vector<std::uint64_t> count_bins(const std::uint8_t* text, std::uint64_t n, Stream& stream) {
  const auto s = static_cast<gpuStream_t>(stream.native());
  DeviceBuffer counts(kBins * sizeof(unsigned long long));
  GPU_CHECK(gpuMemsetAsync(counts.data(), 0, counts.size(), s));
  bin_counts_kernel<<<blocks_for(n + 1), kThreads, 0, s>>>(text, n,
                                                           counts.as<unsigned long long>());
  GPU_CHECK_LAUNCH();
  std::vector<std::uint64_t> host(kBins);
  copy_to_host(host.data(), counts.data(), counts.size(), stream);
  stream.synchronize();
  return host;
}

// Device memory of one bucket at a time; see kBytesPerBucketSuffix.
struct BucketSpace {
  explicit BucketSpace(std::uint64_t capacity)
      : order_a(capacity * 8),
        order_b(capacity * 8),
        keys_a(capacity * 8),
        keys_b(capacity * 8),
        slots_a(capacity * 4),
        slots_b(capacity * 4),
        labels(capacity * 4),
        indices_a(capacity * 4),
        indices_b(capacity * 4),
        sorted_labels_a(capacity * 4),
        sorted_labels_b(capacity * 4) {}
  DeviceBuffer order_a, order_b, keys_a, keys_b, slots_a, slots_b, labels, indices_a, indices_b,
      sorted_labels_a, sorted_labels_b, scratch;
};

class BucketSorter {
 public:
  BucketSorter(const std::uint8_t* text, std::uint64_t n, std::uint64_t capacity, Stream& stream)
      : text_(text),
        n_(n),
        capacity_(capacity),
        space_(capacity),
        stream_(stream),
        s_(static_cast<gpuStream_t>(stream.native())) {}

  // Sorts the bucket by up to kBucketRounds windows, writes its ranks and
  // appends the suffixes still tied to `tied_list`; returns the window rounds.
  int sort(const Bucket& bucket, std::uint64_t* rank, TiedList& tied_list) {
    PingPong<std::uint64_t> order{space_.order_a.as<std::uint64_t>(),
                                  space_.order_b.as<std::uint64_t>()};
    PingPong<std::uint64_t> keys{space_.keys_a.as<std::uint64_t>(),
                                 space_.keys_b.as<std::uint64_t>()};
    const std::uint64_t m = collect(bucket, order.current, keys.current);
    if (m != bucket.suffixes) throw Error("bucketed suffix sort: a bucket's count changed");
    radix_sort_pairs(keys, order, m, 0, kInitialKeyBits, space_.scratch, s_);

    // Round 0's heads come from the sorted keys; the flags and their sums
    // live in the keys' free half and the sorted labels' buffers.
    auto* heads = reinterpret_cast<std::uint32_t*>(keys.alternate);
    first_heads_kernel<<<blocks_for(m), kThreads, 0, s_>>>(keys.current, m, heads);
    GPU_CHECK_LAUNCH();
    PingPong<std::uint32_t> slots{space_.slots_a.as<std::uint32_t>(),
                                  space_.slots_b.as<std::uint32_t>()};
    std::uint64_t tied = next_tied(heads, nullptr, m, slots);
    std::uint64_t* positions = order.alternate;  // free after round 0's sort
    int rounds = 0;
    for (std::uint64_t depth = kInitialChars; tied > 0 && rounds < kBucketRounds;
         depth += kInitialChars, ++rounds)
      tied = deepen(order.current, positions, depth, tied, slots);
    write_ranks(order.current, m, bucket.first_row, rank, positions, tied_list);
    return rounds;
  }

 private:
  // Ranks for the bucket's `count` sorted rows (first_row on) and its tied
  // suffixes onto the list, through the keys' memory (heads, their sums,
  // group starts, tied flags), the indices' (tied sums) and `entries`.
  void write_ranks(const std::uint64_t* order, std::uint64_t count, std::uint64_t first_row,
                   std::uint64_t* rank, std::uint64_t* entries, TiedList& tied_list) {
    auto* heads = space_.keys_a.as<std::uint32_t>();
    std::uint32_t* heads_before = heads + count;
    auto* starts = space_.keys_b.as<std::uint32_t>();
    std::uint32_t* tied = starts + count;
    auto* tied_before = space_.indices_a.as<std::uint32_t>();
    const unsigned blocks = blocks_for(count);
    row_heads_kernel<<<blocks, kThreads, 0, s_>>>(text_, n_, order, count, heads);
    GPU_CHECK_LAUNCH();
    exclusive_sum(heads, heads_before, count, space_.scratch, s_);
    group_starts_kernel<<<blocks, kThreads, 0, s_>>>(heads, heads_before, count, starts);
    GPU_CHECK_LAUNCH();
    bucket_ranks_kernel<<<blocks, kThreads, 0, s_>>>(order, heads, heads_before, starts, count,
                                                     first_row, rank, tied);
    GPU_CHECK_LAUNCH();
    exclusive_sum(tied, tied_before, count, space_.scratch, s_);
    tied_entries_kernel<<<blocks, kThreads, 0, s_>>>(order, heads, tied, tied_before, count,
                                                     entries);
    GPU_CHECK_LAUNCH();
    const std::uint64_t kept = flags_set(tied, tied_before, count, stream_);
    if (kept == 0) return;
    // Workers on several devices append to one list: each claims a block
    // (a bucket's groups stay together; the list's order of groups does not
    // matter to the doubling, bucket_keys.hpp).
    const std::uint64_t at = std::atomic_ref<std::uint64_t>(tied_list.count).fetch_add(kept);
    copy_to_host(tied_list.entries.get() + at, entries, kept * 8, stream_);
    stream_.synchronize();
  }

  // The bucket's positions and their first windows, in text order.
  std::uint64_t collect(const Bucket& bucket, std::uint64_t* positions, std::uint64_t* keys) {
    const std::uint64_t slice = std::min(kMaxSlice, capacity_);
    auto* flags = space_.indices_a.as<std::uint32_t>();
    auto* before = space_.indices_b.as<std::uint32_t>();
    std::uint64_t found = 0;
    for (std::uint64_t first = 0; first <= n_; first += slice) {
      const std::uint64_t count = std::min(slice, n_ + 1 - first);
      in_bucket_kernel<<<blocks_for(count), kThreads, 0, s_>>>(
          text_, n_, first, count, bucket.first_bin, bucket.end_bin, flags);
      GPU_CHECK_LAUNCH();
      exclusive_sum(flags, before, count, space_.scratch, s_);
      const std::uint64_t in_slice = flags_set(flags, before, count, stream_);
      if (found + in_slice > capacity_)
        throw Error("bucketed suffix sort: a bucket outgrew its count");
      collect_kernel<<<blocks_for(count), kThreads, 0, s_>>>(text_, n_, first, count, flags, before,
                                                             positions + found, keys + found);
      GPU_CHECK_LAUNCH();
      found += in_slice;
    }
    return found;
  }

  // From the heads of `count` sorted suffixes, the tied ones' slots (into
  // slots.alternate, then swapped to current) and group labels. Returns how
  // many are tied. `heads` is a 2 x count uint32 region: the tied flags go
  // after the heads; the sums go in the sorted labels' buffers.
  std::uint64_t next_tied(std::uint32_t* heads, const std::uint32_t* slots_in, std::uint64_t count,
                          PingPong<std::uint32_t>& slots) {
    std::uint32_t* tied = heads + count;
    auto* heads_before = space_.sorted_labels_a.as<std::uint32_t>();
    auto* tied_before = space_.sorted_labels_b.as<std::uint32_t>();
    tied_kernel<<<blocks_for(count), kThreads, 0, s_>>>(heads, count, tied);
    GPU_CHECK_LAUNCH();
    exclusive_sum(heads, heads_before, count, space_.scratch, s_);
    exclusive_sum(tied, tied_before, count, space_.scratch, s_);
    compact_tied_kernel<<<blocks_for(count), kThreads, 0, s_>>>(
        heads, heads_before, tied, tied_before, slots_in, count, slots.alternate,
        space_.labels.as<std::uint32_t>());
    GPU_CHECK_LAUNCH();
    const std::uint64_t total = flags_set(tied, tied_before, count, stream_);
    std::swap(slots.current, slots.alternate);
    label_bound_ = count;
    return total;
  }

  // One deepening round over the `count` tied suffixes at `depth`.
  std::uint64_t deepen(std::uint64_t* order, std::uint64_t* positions, std::uint64_t depth,
                       std::uint64_t count, PingPong<std::uint32_t>& slots) {
    PingPong<std::uint64_t> keys{space_.keys_a.as<std::uint64_t>(),
                                 space_.keys_b.as<std::uint64_t>()};
    PingPong<std::uint32_t> indices{space_.indices_a.as<std::uint32_t>(),
                                    space_.indices_b.as<std::uint32_t>()};
    PingPong<std::uint32_t> labels{space_.sorted_labels_a.as<std::uint32_t>(),
                                   space_.sorted_labels_b.as<std::uint32_t>()};
    const unsigned blocks = blocks_for(count);
    window_keys_kernel<<<blocks, kThreads, 0, s_>>>(text_, n_, order, slots.current, count, depth,
                                                    positions, keys.current, indices.current);
    GPU_CHECK_LAUNCH();
    // Stable sorts: by window, then by group label, gives (group, window).
    // Labels number the previous round's groups, so they are below its count.
    radix_sort_pairs(keys, indices, count, 0, kInitialKeyBits, space_.scratch, s_);
    gather_labels_kernel<<<blocks, kThreads, 0, s_>>>(space_.labels.as<std::uint32_t>(),
                                                      indices.current, count, labels.current);
    GPU_CHECK_LAUNCH();
    radix_sort_pairs(labels, indices, count, 0, rank_bits(label_bound_), space_.scratch, s_);
    // The keys are free again: sorted windows in one half, heads and tied
    // flags in the other.
    std::uint64_t* sorted_keys = keys.current;
    auto* heads = reinterpret_cast<std::uint32_t*>(keys.alternate);
    place_kernel<<<blocks, kThreads, 0, s_>>>(text_, n_, positions, indices.current, slots.current,
                                              count, depth, order, sorted_keys);
    GPU_CHECK_LAUNCH();
    deepening_heads_kernel<<<blocks, kThreads, 0, s_>>>(labels.current, sorted_keys, count, heads);
    GPU_CHECK_LAUNCH();
    return next_tied(heads, slots.current, count, slots);
  }

  const std::uint8_t* text_;
  std::uint64_t n_;
  std::uint64_t capacity_;
  std::uint64_t label_bound_ = 0;  // the group labels of the tied suffixes are below it
  BucketSpace space_;
  Stream& stream_;
  gpuStream_t s_;
};

}  // namespace

std::uint64_t bucketed_min_device_bytes(std::uint64_t n) {
  return n + 8 * (n + 1) + kBins * 8 + kReserve + (std::uint64_t{1} << 20) * kBytesPerBucketSuffix;
}

namespace {

// The end of both bucketed sorts, once every bucket has written its ranks:
// the doubling over the tied suffixes, then the rows out in slices of what
// a bucket took (a forced capacity makes them small, so tests cover several
// slices).
void finish_ranks(std::uint64_t* rank, std::uint64_t n, const std::uint8_t* codes,
                  const SortOutput& out, TiedList& tied, std::uint64_t capacity, bool forced,
                  Stream& stream) {
  const int rounds = refine_tied(rank, n, tied, kBucketDepth, capacity, stream);
  trace("bwt gpu: every suffix ranked (" + std::to_string(rounds) + " doubling rounds)");
  const std::uint64_t free = free_device_memory();
  const std::uint64_t budget =
      forced ? capacity * kBytesPerBucketSuffix : (free > kReserve ? free - kReserve : 0);
  output_ranked_rows(rank, n, codes, out, budget, stream);
  trace("bwt gpu: rows copied out");
}

}  // namespace

void sort_in_buckets(const std::uint8_t* codes, std::uint64_t n, const SortOutput& out,
                     std::uint64_t capacity, Stream& stream) {
  const std::vector<std::uint64_t> bins = count_bins(codes, n, stream);
  DeviceBuffer ranks((n + 1) * 8);
  auto* rank = ranks.as<std::uint64_t>();
  const bool forced = capacity != 0;
  if (!forced) {
    const std::uint64_t free = free_device_memory();
    capacity = free > kReserve ? (free - kReserve) / kBytesPerBucketSuffix : 0;
  }
  capacity = std::min(capacity, kMaxBucket);
  const std::vector<Bucket> buckets = plan_buckets(bins, capacity);
  if (buckets.empty() || capacity == 0)
    throw OutOfMemory("bucketed suffix sort: more suffixes share their first " +
                      std::to_string(kBinChars) + " characters than the " +
                      std::to_string(capacity) + " a bucket can hold on this device");
  std::uint64_t largest = 0;
  for (const Bucket& b : buckets) largest = std::max(largest, b.suffixes);
  trace("bwt gpu: " + std::to_string(buckets.size()) + " buckets of at most " +
        std::to_string(largest) + " suffixes");
  TiedList tied(n + 1);
  {
    BucketSorter sorter(codes, n, largest, stream);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const int rounds = sorter.sort(buckets[b], rank, tied);
      trace("bwt gpu: bucket " + std::to_string(b + 1) + " ranked (" + std::to_string(rounds) +
            " window rounds, " + std::to_string(tied.count) + " suffixes tied so far)");
    }
  }
  finish_ranks(rank, n, codes, out, tied, capacity, forced, stream);
}

// ---- the pieces the multi-device sort puts together (multi_sort.hpp) -------

std::vector<std::uint64_t> count_bucket_bins(const DeviceText& text) {
  Stream stream;
  return count_bins(text.codes(), text.size(), stream);
}

std::uint64_t bucket_capacity_here(std::size_t workers) {
  const std::uint64_t free = free_device_memory();
  const std::uint64_t per_worker =
      free > kReserve ? (free - kReserve) / std::max<std::size_t>(workers, 1) : 0;
  return std::min(per_worker / kBytesPerBucketSuffix, kMaxBucket);
}

bool can_reach(int device, int home) {
  if (device == home) return true;
  int can = 0;
  GPU_CHECK(gpuDeviceCanAccessPeer(&can, device, home));
  return can != 0;
}

void reach(int home) {
  if (current_device() == home) return;
  const gpuError_t status = gpuDeviceEnablePeerAccess(home, 0);
  if (status == gpuErrorPeerAccessAlreadyEnabled) {
    (void)gpuGetLastError();  // not an error: another worker on this device enabled it
    return;
  }
  GPU_CHECK(status);
}

struct BucketWorker::Impl {
  Impl(const DeviceText& text, std::uint64_t capacity)
      : sorter(text.codes(), text.size(), capacity, stream) {}
  Stream stream;  // before the sorter, which keeps a reference
  BucketSorter sorter;
};

BucketWorker::BucketWorker(const DeviceText& text, std::uint64_t capacity)
    : impl_(std::make_unique<Impl>(text, capacity)) {}
BucketWorker::~BucketWorker() = default;

int BucketWorker::sort(const Bucket& bucket, std::uint64_t* rank, TiedList& tied) {
  const int rounds = impl_->sorter.sort(bucket, rank, tied);
  impl_->stream.synchronize();  // its ranks are in home's array before the doubling reads them
  return rounds;
}

void finish_bucket_ranks(std::uint64_t* rank, const DeviceText& text, TiedList& tied,
                         std::uint64_t capacity, bool forced, const SortOutput& out) {
  Stream stream;
  finish_ranks(rank, text.size(), text.codes(), out, tied, std::min(capacity, kMaxBucket), forced,
               stream);
}

}  // namespace seqfuse::gpu::bwt
