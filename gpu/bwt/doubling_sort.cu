#include "gpu/vendor.cuh"

// The one-pass suffix sort (suffix_sort.hpp): every suffix sorted at once by
// its first 21 characters, then only the suffixes still tied sorted further
// by prefix doubling (tied_doubling.cu, as the bucketed sort's second stage
// does). bucket_sort.cu takes the texts beyond it. Why the initial order and
// the ranks are right: prefix_doubling.hpp; why the doubling over the tied
// suffixes alone finishes the order: bucket_keys.hpp. CPU emulation:
// tests/unit/test_bwt_prefix_doubling_emulated.cpp.
//
// Floors. N = n + 1 suffixes. The initial sort reads the text (1 B; the
// 21-byte windows overlap in cache) and sorts 63-bit keys with 4-byte
// positions in 8 passes (8 x 24 B in and out, plus the key and position
// written first: 12 B); heads, scans and ranks (rank scattered: a 32-byte
// sector per 8-byte write) add about 70 B: about 280 B a suffix, 0.08 ns at
// the H100's 3.35 TB/s, 12 ms for a 70 Mbp genome's two strands. The rows
// (rank in 8 B, text 1 B, code scattered 32 B, copied out 1 B) add about
// 42 B. Then the doubling touches only the tied suffixes, about 290 B each
// a round (tied_doubling.cu): on random text after 21 characters almost
// none; on human chrX a few per cent of the suffixes, for log2(L / 21)
// rounds with L the longest repeat. The earlier version re-sorted all N
// suffixes every round: 17 rounds of 250 B each for chrX (run 23a).
#include <cstdint>
#include <string>
#include <utility>

#include "gpu/bwt/group_kernels.cuh"
#include "gpu/bwt/launch.cuh"
#include "gpu/bwt/prefix_doubling.hpp"
#include "gpu/bwt/row_output.cuh"
#include "gpu/bwt/sort_paths.hpp"
#include "gpu/bwt/tied_doubling.hpp"
#include "gpu/primitives/device_sort.cuh"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::gpu::bwt {
namespace {

// Device bytes per suffix in the initial sort: keys (8) and positions (4),
// each twice for the sort's ping-pong halves, and the ranks (8). Head flags
// and their sums live in the keys' free half, group starts in the
// positions' free half, tied flags and their sums in the sorted keys once
// the heads are marked.
constexpr std::uint64_t kBytesPerSuffix = 2 * 8 + 2 * 4 + 8;
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

__global__ void mark_heads_kernel(const std::uint64_t* sorted_keys, std::uint64_t count,
                                  std::uint32_t* heads) {
  const std::uint64_t j = thread_index();
  if (j < count) heads[j] = group_head(sorted_keys, j);
}

// rank[positions[j]] = the sorted index of the head of j's group; tied[j]
// = 1 where that group has two or more members.
__global__ void first_ranks_kernel(const std::uint32_t* positions, const std::uint32_t* heads,
                                   const std::uint32_t* heads_before, const std::uint32_t* starts,
                                   std::uint64_t count, std::uint64_t* rank, std::uint32_t* tied) {
  const std::uint64_t j = thread_index();
  if (j >= count) return;
  rank[positions[j]] = starts[group_of(heads, heads_before, j)];
  tied[j] = still_tied(heads, count, j);
}

// Device buffers of the initial sort; see kBytesPerSuffix (the ranks are
// the caller's: they outlive this space).
struct InitialSpace {
  explicit InitialSpace(std::uint64_t count)
      : keys_a(count * 8), keys_b(count * 8), positions_a(count * 4), positions_b(count * 4) {}
  DeviceBuffer keys_a, keys_b, positions_a, positions_b, scratch;
};

// Sorts all `count` suffixes by their first 21 characters, writes every
// rank and returns the tied list (entries in row order, heads marked) on
// the device, with its length.
std::pair<DeviceBuffer, std::uint64_t> initial_sort(const std::uint8_t* text, std::uint64_t n,
                                                    std::uint64_t* rank, Stream& stream) {
  const std::uint64_t count = n + 1;
  const auto s = static_cast<gpuStream_t>(stream.native());
  InitialSpace space(count);
  PingPong<std::uint64_t> keys{space.keys_a.as<std::uint64_t>(), space.keys_b.as<std::uint64_t>()};
  PingPong<std::uint32_t> positions{space.positions_a.as<std::uint32_t>(),
                                    space.positions_b.as<std::uint32_t>()};
  const unsigned blocks = blocks_for(count);
  initial_keys_kernel<<<blocks, kThreads, 0, s>>>(text, n, keys.current, positions.current);
  GPU_CHECK_LAUNCH();
  radix_sort_pairs(keys, positions, count, 0, kInitialKeyBits, space.scratch, s);

  auto* heads = reinterpret_cast<std::uint32_t*>(keys.alternate);
  std::uint32_t* heads_before = heads + count;
  mark_heads_kernel<<<blocks, kThreads, 0, s>>>(keys.current, count, heads);
  GPU_CHECK_LAUNCH();
  exclusive_sum(heads, heads_before, count, space.scratch, s);
  std::uint32_t* starts = positions.alternate;
  group_starts_kernel<<<blocks, kThreads, 0, s>>>(heads, heads_before, count, starts);
  GPU_CHECK_LAUNCH();
  auto* tied = reinterpret_cast<std::uint32_t*>(keys.current);  // the sorted keys are done
  std::uint32_t* tied_before = tied + count;
  first_ranks_kernel<<<blocks, kThreads, 0, s>>>(positions.current, heads, heads_before, starts,
                                                 count, rank, tied);
  GPU_CHECK_LAUNCH();
  exclusive_sum(tied, tied_before, count, space.scratch, s);
  const std::uint64_t tied_count = flags_set(tied, tied_before, count, stream);
  DeviceBuffer entries(tied_count * 8);
  if (tied_count > 0) {
    tied_entries_kernel<<<blocks, kThreads, 0, s>>>(positions.current, heads, tied, tied_before,
                                                    count, entries.as<std::uint64_t>());
    GPU_CHECK_LAUNCH();
  }
  return {std::move(entries), tied_count};
}

}  // namespace

std::uint64_t one_pass_device_bytes(std::uint64_t n) {
  const std::uint64_t count = n + 1;
  return n + count * (kBytesPerSuffix + kScratchPerSuffix) + kScratchFixed;
}

void sort_one_pass(const std::uint8_t* text, std::uint64_t n, const SortOutput& out,
                   Stream& stream) {
  DeviceBuffer ranks((n + 1) * 8);
  auto* rank = ranks.as<std::uint64_t>();
  auto [entries, tied] = initial_sort(text, n, rank, stream);
  trace("bwt gpu: one pass sorted by " + std::to_string(kInitialChars) + " characters, " +
        std::to_string(tied) + " suffixes tied");
  const int rounds = refine_tied(rank, n, std::move(entries), tied, kInitialChars, stream);
  trace("bwt gpu: every suffix ranked (" + std::to_string(rounds) + " doubling rounds)");
  const std::uint64_t free = free_device_memory();
  output_ranked_rows(rank, n, text, out, free > kScratchFixed ? free - kScratchFixed : 0, stream);
  trace("bwt gpu: rows copied out");
}

}  // namespace seqfuse::gpu::bwt
