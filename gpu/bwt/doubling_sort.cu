#include "gpu/vendor.cuh"

// Suffix sorting by prefix doubling over device radix sorts, all suffixes at
// once (the one-pass path of suffix_sort.hpp; bucket_sort.cu takes texts
// beyond it). The arithmetic
// (keys, heads, groups) and the proof that the order is the suffix array of
// text$ are in prefix_doubling.hpp; a CPU emulation test runs the same steps.
//
// Floors. N = n + 1 suffixes, b = rank_bits(n) (24 for 10 M codes, 32 at the
// limit), P = ceil(2b / 8) passes of an 8-bit-digit radix sort. Bytes moved
// per suffix in one doubling round:
//   keys        rank[i], rank[i + h] in (8), key + position out (12)       20
//   radix sort  P passes of key + value in and out (24 each) + histogram 24P + 8
//   heads       key in (8; the neighbour is cached), flag out (4)            12
//   scan        flags in, sums out                                          8
//   group starts flags and sums in, sparse starts out                     <= 12
//   ranks       position, flag, sum, start in (16); rank[pos] scattered:
//               one 32-byte sector per 4-byte write                         48
// about 108 + 24P: 252 B for 10 M codes (P = 6), 2.5 GB a round, 0.75 ms at
// the H100's 3.35 TB/s; 300 B at the 2^32 limit (0.38 s a round). The initial
// round reads the text (1 B; the 21-byte windows overlap in cache) and sorts
// 63-bit keys in 8 passes: about 290 B a suffix. Rounds after the initial
// sort: ceil(log2((L + 1) / 21)) for a longest repeat of L characters, about
// log2(L / 21): none or one for random text, 8 for one letter repeated 5000
// times, 12 to 17 for a genome with repeats of 100 kb to Mb.
//
// This simple version re-sorts all N suffixes every round. Skipping finished
// groups (singletons: most suffixes after a round or two of a real genome)
// is a later optimisation; ranks are sorted indices of group heads so that a
// group's sorted range never moves, which that optimisation needs.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "gpu/bwt/group_kernels.cuh"
#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/prefix_doubling.hpp"
#include "gpu/bwt/row_output.cuh"
#include "gpu/bwt/sort_paths.hpp"
#include "gpu/primitives/device_sort.cuh"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::gpu::bwt {
namespace {

// Device bytes per suffix: keys (8) and positions (4), each twice for the
// sort's ping-pong halves, and the ranks (4). Head flags and their sums live
// in the keys' free half, group starts in the positions' free half.
constexpr std::uint64_t kBytesPerSuffix = 2 * 8 + 2 * 4 + 4;
// The sorts' temporary storage: a margin per suffix plus a fixed part.
constexpr std::uint64_t kScratchPerSuffix = 2;
constexpr std::uint64_t kScratchFixed = std::uint64_t{32} << 20;

__global__ void initial_keys_kernel(const std::uint8_t* text, std::uint64_t n, std::uint64_t* keys,
                                    std::uint32_t* positions) {
  const std::uint64_t i = thread_index();
  if (i > n) return;
  keys[i] = initial_key(text, n, i);
  positions[i] = static_cast<std::uint32_t>(i);
}

__global__ void doubling_keys_kernel(const std::uint32_t* rank, std::uint64_t n, std::uint64_t h,
                                     int bits, std::uint64_t* keys, std::uint32_t* positions) {
  const std::uint64_t i = thread_index();
  if (i > n) return;
  keys[i] = doubling_key(rank, n, i, h, bits);
  positions[i] = static_cast<std::uint32_t>(i);
}

__global__ void mark_heads_kernel(const std::uint64_t* sorted_keys, std::uint64_t count,
                                  std::uint32_t* heads) {
  const std::uint64_t j = thread_index();
  if (j < count) heads[j] = group_head(sorted_keys, j);
}

// rank[positions[j]] = the sorted index of the head of j's group.
__global__ void ranks_kernel(const std::uint32_t* positions, const std::uint32_t* heads,
                             const std::uint32_t* heads_before, const std::uint32_t* starts,
                             std::uint64_t count, std::uint32_t* rank) {
  const std::uint64_t j = thread_index();
  if (j < count) rank[positions[j]] = starts[group_of(heads, heads_before, j)];
}

// Device buffers of one build; see kBytesPerSuffix.
struct SortSpace {
  explicit SortSpace(std::uint64_t count)
      : keys_a(count * 8),
        keys_b(count * 8),
        positions_a(count * 4),
        positions_b(count * 4),
        rank(count * 4) {}
  DeviceBuffer keys_a, keys_b, positions_a, positions_b, rank, scratch;
};

// Head flags and group ranks after a sort; returns the number of groups.
// The flags and their sums go to the keys' free half.
std::uint64_t rank_groups(PingPong<std::uint64_t>& keys, PingPong<std::uint32_t>& positions,
                          std::uint64_t count, SortSpace& space, bool write_ranks,
                          gpuStream_t stream) {
  auto* heads = reinterpret_cast<std::uint32_t*>(keys.alternate);
  auto* heads_before = heads + count;
  const unsigned blocks = blocks_for(count);
  mark_heads_kernel<<<blocks, kThreads, 0, stream>>>(keys.current, count, heads);
  GPU_CHECK_LAUNCH();
  exclusive_sum(heads, heads_before, count, space.scratch, stream);
  std::uint32_t last_head = 0, last_before = 0;
  GPU_CHECK(gpuMemcpyAsync(&last_head, heads + count - 1, sizeof last_head, gpuMemcpyDeviceToHost,
                           stream));
  GPU_CHECK(gpuMemcpyAsync(&last_before, heads_before + count - 1, sizeof last_before,
                           gpuMemcpyDeviceToHost, stream));
  GPU_CHECK(gpuStreamSynchronize(stream));
  const std::uint64_t groups = std::uint64_t{last_before} + last_head;
  if (groups == count || !write_ranks) return groups;
  std::uint32_t* starts = positions.alternate;
  group_starts_kernel<<<blocks, kThreads, 0, stream>>>(heads, heads_before, count, starts);
  GPU_CHECK_LAUNCH();
  ranks_kernel<<<blocks, kThreads, 0, stream>>>(positions.current, heads, heads_before, starts,
                                                count, space.rank.as<std::uint32_t>());
  GPU_CHECK_LAUNCH();
  return groups;
}

}  // namespace

std::uint64_t one_pass_device_bytes(std::uint64_t n) {
  const std::uint64_t count = n + 1;
  return n + count * (kBytesPerSuffix + kScratchPerSuffix) + kScratchFixed;
}

void sort_one_pass(const std::uint8_t* text, std::uint64_t n, const SortOutput& out,
                   Stream& stream) {
  const std::uint64_t count = n + 1;
  const auto s = static_cast<gpuStream_t>(stream.native());
  SortSpace space(count);
  PingPong<std::uint64_t> keys{space.keys_a.as<std::uint64_t>(), space.keys_b.as<std::uint64_t>()};
  PingPong<std::uint32_t> positions{space.positions_a.as<std::uint32_t>(),
                                    space.positions_b.as<std::uint32_t>()};
  initial_keys_kernel<<<blocks_for(count), kThreads, 0, s>>>(text, n, keys.current,
                                                             positions.current);
  GPU_CHECK_LAUNCH();
  radix_sort_pairs(keys, positions, count, 0, kInitialKeyBits, space.scratch, s);

  const int bits = rank_bits(n);
  int rounds = 0;
  for (std::uint64_t h = kInitialChars;; h *= 2, ++rounds) {
    if (rank_groups(keys, positions, count, space, true, s) == count) break;
    doubling_keys_kernel<<<blocks_for(count), kThreads, 0, s>>>(
        space.rank.as<std::uint32_t>(), n, h, bits, keys.current, positions.current);
    GPU_CHECK_LAUNCH();
    radix_sort_pairs(keys, positions, count, 0, 2 * bits, space.scratch, s);
  }

  trace("bwt gpu: one pass sorted (" + std::to_string(rounds) + " doubling rounds)");
  // Every key is distinct: the positions are the suffix array. The keys are
  // no longer needed: the codes go out through one half, the samples
  // (at most one a suffix) through the other.
  output_rows(positions.current, count, 0, text, out,
              reinterpret_cast<std::uint8_t*>(keys.alternate), keys.current, stream);
  trace("bwt gpu: rows copied out");
}

}  // namespace seqfuse::gpu::bwt
