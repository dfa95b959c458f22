#include "gpu/vendor.cuh"

// Prefix doubling over the suffixes the bucketed sort left tied; the order
// and why chunks may read each other's refined ranks: bucket_keys.hpp.
//
// A round, for each chunk of whole groups (entries in row order, heads
// marked): labels from the head marks, keys rank[i + h]; a stable sort by
// key, then by label, gives each group in (group, rank[i + h]) order; the
// members get the group's first row plus their subgroup head's offset in
// the group, and the ones still tied go to the next round's list.
//
// Floors, per entry a round: rank[i] and rank[i + h] gathered (two 32-byte
// sectors), sorts of 4 + ceil(label bits / 8) to 8 passes of 12 bytes in
// and out (about 150), the refined rank scattered (a sector), scans and
// flags (about 40): some 290 device bytes, 0.09 ns an entry at 3.35 TB/s.
// A list that fits one chunk stays on the device; a larger one moves up and
// back each round (16 PCIe bytes an entry, 0.64 ns at 25 GB/s). The lists
// shrink each round; human chrX's started at 8.8% of its suffixes (run 23a).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "gpu/bwt/bucket_keys.hpp"
#include "gpu/bwt/group_kernels.cuh"
#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/tied_doubling.hpp"
#include "gpu/error.hpp"
#include "gpu/primitives/device_sort.cuh"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::gpu::bwt {
namespace {

__global__ void head_flags_kernel(const std::uint64_t* entries, std::uint64_t count,
                                  std::uint32_t* flags) {
  const std::uint64_t t = thread_index();
  if (t < count) flags[t] = entry_head(entries[t]);
}

// Each entry's group label and key; each group's rank and first index.
__global__ void prepare_kernel(const std::uint64_t* entries, std::uint64_t count,
                               const std::uint32_t* flags, const std::uint32_t* flags_before,
                               const std::uint64_t* rank, std::uint64_t h, std::uint64_t* keys,
                               std::uint32_t* indices, std::uint32_t* labels,
                               std::uint64_t* label_rank, std::uint32_t* label_start) {
  const std::uint64_t t = thread_index();
  if (t >= count) return;
  const std::uint64_t i = entry_suffix(entries[t]);
  const std::uint32_t label = group_of(flags, flags_before, t);
  labels[t] = label;
  if (flags[t] != 0) {
    label_rank[label] = rank[i];
    label_start[label] = static_cast<std::uint32_t>(t);
  }
  keys[t] = rank[i + h];  // i + h <= n: tied suffixes share h real characters
  indices[t] = static_cast<std::uint32_t>(t);
}

// The suffixes and keys in (group, key) order.
__global__ void place_kernel(const std::uint64_t* entries, const std::uint32_t* indices,
                             std::uint64_t count, const std::uint64_t* rank, std::uint64_t h,
                             std::uint64_t* sorted_suffixes, std::uint64_t* sorted_keys) {
  const std::uint64_t t = thread_index();
  if (t >= count) return;
  const std::uint64_t i = entry_suffix(entries[indices[t]]);
  sorted_suffixes[t] = i;
  sorted_keys[t] = rank[i + h];  // no rank of this chunk has changed yet
}

__global__ void subgroup_heads_kernel(const std::uint32_t* sorted_labels,
                                      const std::uint64_t* sorted_keys, std::uint64_t count,
                                      std::uint32_t* heads) {
  const std::uint64_t t = thread_index();
  if (t < count) heads[t] = deepening_head(sorted_labels, sorted_keys, t);
}

// The refined ranks, and which entries stay tied.
__global__ void refine_kernel(const std::uint64_t* sorted_suffixes,
                              const std::uint32_t* sorted_labels, const std::uint32_t* heads,
                              const std::uint32_t* heads_before, const std::uint32_t* starts,
                              const std::uint64_t* label_rank, const std::uint32_t* label_start,
                              std::uint64_t count, std::uint64_t* rank, std::uint32_t* tied) {
  const std::uint64_t t = thread_index();
  if (t >= count) return;
  const std::uint32_t label = sorted_labels[t];
  const std::uint32_t start = starts[group_of(heads, heads_before, t)];
  rank[sorted_suffixes[t]] = label_rank[label] + (start - label_start[label]);
  tied[t] = still_tied(heads, count, t);
}

// Kept free beside a chunk: the sorts' scratch and the runtime's needs.
constexpr std::uint64_t kChunkReserve = std::uint64_t{1} << 30;

// Device memory of one chunk; kBytesPerChunkEntry bytes an entry. A list
// already on the device may be adopted as the first chunk's entries.
struct ChunkSpace {
  ChunkSpace(std::uint64_t capacity, DeviceBuffer adopted)
      : entries(adopted.size() >= capacity * 8 ? std::move(adopted) : DeviceBuffer(capacity * 8)),
        survivors(capacity * 8),
        keys_a(capacity * 8),
        keys_b(capacity * 8),
        indices_a(capacity * 4),
        indices_b(capacity * 4),
        labels(capacity * 4),
        sorted_labels_a(capacity * 4),
        sorted_labels_b(capacity * 4),
        flags(capacity * 4),
        flags_before(capacity * 4),
        label_rank(capacity * 8),
        label_start(capacity * 4) {}
  DeviceBuffer entries, survivors, keys_a, keys_b, indices_a, indices_b, labels, sorted_labels_a,
      sorted_labels_b, flags, flags_before, label_rank, label_start, scratch;
};

class TiedRefiner {
 public:
  TiedRefiner(std::uint64_t* rank, std::uint64_t n, std::uint64_t capacity, Stream& stream,
              DeviceBuffer entries = {})
      : rank_(rank),
        n_(n),
        space_(capacity, std::move(entries)),
        stream_(stream),
        s_(static_cast<gpuStream_t>(stream.native())) {}

  // One chunk of `count` entries, already in space_.entries, at depth h;
  // leaves the survivors in space_.survivors and returns how many.
  std::uint64_t refine(std::uint64_t count, std::uint64_t h) {
    const unsigned blocks = blocks_for(count);
    const auto* entries = space_.entries.as<std::uint64_t>();
    auto* flags = space_.flags.as<std::uint32_t>();
    auto* flags_before = space_.flags_before.as<std::uint32_t>();
    auto* label_rank = space_.label_rank.as<std::uint64_t>();
    auto* label_start = space_.label_start.as<std::uint32_t>();
    PingPong<std::uint64_t> keys{space_.keys_a.as<std::uint64_t>(),
                                 space_.keys_b.as<std::uint64_t>()};
    PingPong<std::uint32_t> indices{space_.indices_a.as<std::uint32_t>(),
                                    space_.indices_b.as<std::uint32_t>()};
    PingPong<std::uint32_t> labels{space_.sorted_labels_a.as<std::uint32_t>(),
                                   space_.sorted_labels_b.as<std::uint32_t>()};

    head_flags_kernel<<<blocks, kThreads, 0, s_>>>(entries, count, flags);
    GPU_CHECK_LAUNCH();
    exclusive_sum(flags, flags_before, count, space_.scratch, s_);
    prepare_kernel<<<blocks, kThreads, 0, s_>>>(
        entries, count, flags, flags_before, rank_, h, keys.current, indices.current,
        space_.labels.as<std::uint32_t>(), label_rank, label_start);
    GPU_CHECK_LAUNCH();
    // Stable sorts: by key, then by label, gives (group, key).
    radix_sort_pairs(keys, indices, count, 0, rank_bits(n_), space_.scratch, s_);
    gather_labels_kernel<<<blocks, kThreads, 0, s_>>>(space_.labels.as<std::uint32_t>(),
                                                      indices.current, count, labels.current);
    GPU_CHECK_LAUNCH();
    // Labels are below the group count, itself at most `count`: sorting by
    // rank_bits(count) bits needs no round trip for the exact count.
    radix_sort_pairs(labels, indices, count, 0, rank_bits(count), space_.scratch, s_);

    // Free again: both key halves (sorted suffixes and keys), the flags
    // (subgroup heads and their sums), the unsorted labels (group starts),
    // the free halves of indices and labels (tied flags and their sums).
    std::uint64_t* sorted_suffixes = keys.alternate;
    std::uint64_t* sorted_keys = keys.current;
    place_kernel<<<blocks, kThreads, 0, s_>>>(entries, indices.current, count, rank_, h,
                                              sorted_suffixes, sorted_keys);
    GPU_CHECK_LAUNCH();
    std::uint32_t* heads = flags;
    std::uint32_t* heads_before = flags_before;
    subgroup_heads_kernel<<<blocks, kThreads, 0, s_>>>(labels.current, sorted_keys, count, heads);
    GPU_CHECK_LAUNCH();
    exclusive_sum(heads, heads_before, count, space_.scratch, s_);
    auto* starts = space_.labels.as<std::uint32_t>();
    group_starts_kernel<<<blocks, kThreads, 0, s_>>>(heads, heads_before, count, starts);
    GPU_CHECK_LAUNCH();
    std::uint32_t* tied = indices.alternate;
    std::uint32_t* tied_before = labels.alternate;
    refine_kernel<<<blocks, kThreads, 0, s_>>>(sorted_suffixes, labels.current, heads, heads_before,
                                               starts, label_rank, label_start, count, rank_, tied);
    GPU_CHECK_LAUNCH();
    exclusive_sum(tied, tied_before, count, space_.scratch, s_);
    auto* survivors = space_.survivors.as<std::uint64_t>();
    tied_entries_kernel<<<blocks, kThreads, 0, s_>>>(sorted_suffixes, heads, tied, tied_before,
                                                     count, survivors);
    GPU_CHECK_LAUNCH();
    return flags_set(tied, tied_before, count, stream_);
  }

  [[nodiscard]] std::uint64_t* chunk() const { return space_.entries.as<std::uint64_t>(); }
  [[nodiscard]] const std::uint64_t* survivors() const {
    return space_.survivors.as<std::uint64_t>();
  }
  // The survivors become the next round's chunk.
  void keep_survivors() { std::swap(space_.entries, space_.survivors); }

 private:
  std::uint64_t* rank_;
  std::uint64_t n_;
  ChunkSpace space_;
  Stream& stream_;
  gpuStream_t s_;
};

void trace_round(std::uint64_t h, std::uint64_t left) {
  trace("bwt gpu: doubling round at depth " + std::to_string(2 * h) + ", " + std::to_string(left) +
        " suffixes still tied");
}

// Rounds over a list that fits one chunk: it stays on the device.
int refine_resident(TiedRefiner& refiner, std::uint64_t count, std::uint64_t h) {
  int rounds = 0;
  for (; count > 0; h *= 2, ++rounds) {
    count = refiner.refine(count, h);
    refiner.keep_survivors();
    trace_round(h, count);
  }
  return rounds;
}

}  // namespace

int refine_tied(std::uint64_t* rank, std::uint64_t n, TiedList& tied, std::uint64_t depth,
                std::uint64_t capacity, Stream& stream) {
  if (tied.count == 0) return 0;
  capacity = std::min(capacity, tied.count);
  TiedRefiner refiner(rank, n, capacity, stream);
  std::uint64_t h = depth;
  if (tied.count <= capacity) {
    copy_to_device(refiner.chunk(), tied.entries.get(), tied.count * 8, stream);
    const std::uint64_t count = std::exchange(tied.count, 0);
    return refine_resident(refiner, count, h);
  }
  // Chunks of whole groups from the host list, survivors back to the host.
  int rounds = 0;
  TiedList next(tied.count);
  for (; tied.count > 0; h *= 2, ++rounds) {
    next.count = 0;
    for (std::uint64_t first = 0; first < tied.count;) {
      const std::uint64_t end = chunk_end(tied.entries.get(), tied.count, first, capacity);
      if (end == first)
        throw OutOfMemory("suffix sort: a group of suffixes sharing " + std::to_string(h) +
                          " characters is larger than the " + std::to_string(capacity) +
                          " a chunk can hold on this device");
      copy_to_device(refiner.chunk(), tied.entries.get() + first, (end - first) * 8, stream);
      const std::uint64_t kept = refiner.refine(end - first, h);
      copy_to_host(next.entries.get() + next.count, refiner.survivors(), kept * 8, stream);
      stream.synchronize();
      next.count += kept;
      first = end;
    }
    std::swap(tied, next);
    trace_round(h, tied.count);
  }
  return rounds;
}

int refine_tied(std::uint64_t* rank, std::uint64_t n, DeviceBuffer entries, std::uint64_t count,
                std::uint64_t depth, Stream& stream) {
  if (count == 0) return 0;
  // The free memory, less the chunk's own entries (the adopted list).
  const std::uint64_t free = free_device_memory() + entries.size();
  const std::uint64_t capacity =
      free > kChunkReserve ? (free - kChunkReserve) / kBytesPerChunkEntry : 0;
  if (count <= capacity) {
    TiedRefiner refiner(rank, n, count, stream, std::move(entries));
    return refine_resident(refiner, count, depth);
  }
  TiedList list(count);
  copy_to_host(list.entries.get(), entries.data(), count * 8, stream);
  stream.synchronize();
  list.count = count;
  entries = DeviceBuffer();
  return refine_tied(rank, n, list, depth, capacity, stream);
}

}  // namespace seqfuse::gpu::bwt
