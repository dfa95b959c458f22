// Device engine for alignment scores of many independent pairs (record k of
// the queries against record k of the targets): one thread per pair, the
// per-pair DP of pair_dp.hpp. Plain C++ header: the engine's entry point and
// the host-side layout (sorting, grouping, packing, batching) that both the
// kernel's host code and the CPU emulation test use.
//
// `--pairs` scores through this engine (align_job.cpp, GpuPairScorer);
// floors and measured rates are in bench/results/align-gpu-notes.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "gpu/host_loop.hpp"
#include "gpu/align/pair_dp.hpp"
#include "gpu/align/score_db.hpp"

namespace seqfuse::gpu {

static_assert(align::pairs::kTableStride == kMaxAlphabet, "one table layout for both kernels");

// One input pair: where its codes start and how many there are.
struct PairInput {
  std::uint64_t query = 0;
  std::uint64_t target = 0;
  std::uint32_t m = 0;
  std::uint32_t n = 0;
};

// A batch of groups as one launch takes it. Slots are a multiple of kGroup;
// padding slots have m = n = 0 and pair kPaddingSlot.
struct PairBatch {
  static constexpr std::uint32_t kPaddingSlot = UINT32_MAX;
  std::vector<std::uint32_t> pairs;  // slot -> input pair index
  std::vector<align::pairs::PairGroup> groups;
  std::vector<align::pairs::PairLengths> lengths;  // by slot
  std::uint64_t words = 0;                         // packed letter words
  std::uint64_t edges = 0;                         // edge cells
  bool narrow = true;                              // 16-bit edge cells

  // Device bytes of a launch: letters, group table, lengths, edges, results.
  [[nodiscard]] static std::uint64_t bytes_of(std::uint64_t words, std::uint64_t edges,
                                              std::uint64_t groups, std::uint64_t slots,
                                              bool narrow) {
    return words * sizeof(std::uint32_t) + groups * sizeof(align::pairs::PairGroup) +
           slots * (sizeof(align::pairs::PairLengths) + sizeof(align::pairs::PairEnd)) +
           edges * (narrow ? sizeof(align::pairs::EdgeNarrow) : sizeof(align::pairs::EdgeWide));
  }
  [[nodiscard]] std::uint64_t edge_bytes() const {
    return edges * (narrow ? sizeof(align::pairs::EdgeNarrow) : sizeof(align::pairs::EdgeWide));
  }
  [[nodiscard]] std::uint64_t bytes() const {
    return bytes_of(words, edges, groups.size(), pairs.size(), narrow);
  }
};

// Bounds that keep 32-bit slot indices and launch sizes safe.
inline constexpr std::size_t kMaxBatchSlots = std::size_t{1} << 24;

// The kernel's substitution table from a row-major alphabet^2 matrix:
// table[q * kTableStride + t], the sentinel row kPastEnd, the rest 0.
inline std::vector<int> pair_table(std::span<const int> matrix, int alphabet) {
  using namespace align::pairs;
  std::vector<int> table(kTableSize, 0);
  for (int q = 0; q < alphabet; ++q)
    for (int t = 0; t < alphabet; ++t)
      table[q * kTableStride + t] = matrix[static_cast<std::size_t>(q * alphabet + t)];
  for (int t = 0; t < kTableStride; ++t) table[kSentinelRow * kTableStride + t] = kPastEnd;
  return table;
}

// The order pairs are planned in, as one key per pair: 16-bit-edge pairs
// after the others, then more row chunks first, longer targets first, longer
// queries first, input order last (so the order is total and repeatable).
struct PairOrderKey {
  std::uint64_t major = 0;  // narrow flag | ~chunks | ~n
  std::uint64_t minor = 0;  // ~m | pair index
  [[nodiscard]] std::uint32_t pair() const noexcept { return static_cast<std::uint32_t>(minor); }
  [[nodiscard]] bool narrow() const noexcept { return (major >> 63) != 0; }
  friend bool operator<(const PairOrderKey& x, const PairOrderKey& y) noexcept {
    return x.major != y.major ? x.major < y.major : x.minor < y.minor;
  }
};

// Sorts keys on the loop's threads: slices sorted in parallel, then merged
// pairwise (1 M pairs: a stable_sort through the pair records took ~0.3 s).
inline void sort_pair_keys(std::vector<PairOrderKey>& keys, const HostLoop& loop) {
  const std::size_t slices = std::clamp<std::size_t>(keys.size() >> 16, 1, loop.workers());
  const std::size_t per = (keys.size() + slices - 1) / slices;
  const auto at = [&](std::size_t slice) {
    return keys.begin() + static_cast<std::ptrdiff_t>(std::min(keys.size(), slice * per));
  };
  loop(slices, 1, [&](unsigned, std::size_t begin, std::size_t) {
    std::sort(at(begin), at(begin + 1));
  });
  for (std::size_t width = 1; width < slices; width *= 2) {
    const std::size_t merges = (slices + 2 * width - 1) / (2 * width);
    loop(merges, 1, [&](unsigned, std::size_t begin, std::size_t) {
      const std::size_t first = begin * 2 * width;
      std::inplace_merge(at(first), at(first + width), at(first + 2 * width));
    });
  }
}

// Sorts the pairs so a group's (and a warp's) pairs run the same number of
// row chunks over similar target lengths, cuts them into groups of kGroup,
// and packs groups into batches of at most `budget_bytes` (a group larger
// than the budget alone gets a batch of its own). Pairs whose edge cells fit
// 16 bits (narrow_edge_fits) and the others are planned apart, so every
// batch is of one edge width; with force_wide every batch is 32-bit.
inline std::vector<PairBatch> plan_pair_batches(std::span<const PairInput> pairs,
                                                align::GapPenalties gaps, int max_substitution,
                                                std::uint64_t budget_bytes, int code_bits,
                                                bool force_wide = false,
                                                const HostLoop& loop = {}) {
  using namespace align::pairs;
  const std::uint64_t per_word = 32 / static_cast<std::uint64_t>(code_bits);
  const auto chunks = [](std::uint32_t m) { return (m + kRows - 1) / kRows; };
  std::vector<PairOrderKey> keys(pairs.size());
  loop(
      pairs.size(), std::size_t{1} << 16,
      [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
          const PairInput& p = pairs[k];
          const bool narrow = !force_wide && narrow_edge_fits(p.m, p.n, gaps, max_substitution);
          keys[k].major = std::uint64_t{narrow} << 63 |
                          std::uint64_t{~chunks(p.m) & 0x7fffffffu} << 32 | std::uint32_t{~p.n};
          keys[k].minor = std::uint64_t{~p.m} << 32 | k;
        }
      });
  sort_pair_keys(keys, loop);
  const auto first_narrow = std::partition_point(
      keys.begin(), keys.end(), [](const PairOrderKey& key) { return !key.narrow(); });
  std::vector<PairBatch> batches;
  const std::size_t wide_count = static_cast<std::size_t>(first_narrow - keys.begin());
  for (const bool narrow_part : {false, true}) {
    const std::span<const PairOrderKey> part =
        narrow_part ? std::span<const PairOrderKey>(keys).subspan(wide_count)
                    : std::span<const PairOrderKey>(keys).first(wide_count);
    PairBatch batch;
    batch.narrow = narrow_part;
    const auto close = [&] {
      if (!batch.pairs.empty()) batches.push_back(std::move(batch));
      batch = PairBatch{};
      batch.narrow = narrow_part;
    };
    for (std::size_t first = 0; first < part.size(); first += kGroup) {
      const std::size_t count = std::min<std::size_t>(kGroup, part.size() - first);
      std::uint64_t max_m = 0, max_n = 0;
      for (std::size_t k = 0; k < count; ++k) {
        max_m = std::max<std::uint64_t>(max_m, pairs[part[first + k].pair()].m);
        max_n = std::max<std::uint64_t>(max_n, pairs[part[first + k].pair()].n);
      }
      const std::uint64_t query_words = (max_m + per_word - 1) / per_word * kGroup;
      const std::uint64_t target_words = (max_n + per_word - 1) / per_word * kGroup;
      const std::uint64_t edges = max_m > static_cast<std::uint64_t>(kRows) ? max_n * kGroup : 0;
      const std::uint64_t grown =
          PairBatch::bytes_of(batch.words + query_words + target_words, batch.edges + edges,
                              batch.groups.size() + 1, batch.pairs.size() + kGroup, batch.narrow);
      if (!batch.pairs.empty() &&
          (grown > budget_bytes || batch.pairs.size() + kGroup > kMaxBatchSlots))
        close();
      batch.groups.push_back(PairGroup{batch.words, batch.words + query_words, batch.edges});
      batch.words += query_words + target_words;
      batch.edges += edges;
      for (std::size_t k = 0; k < kGroup; ++k) {
        if (k < count) {
          const std::uint32_t p = part[first + k].pair();
          batch.pairs.push_back(p);
          batch.lengths.push_back(PairLengths{pairs[p].m, pairs[p].n});
        } else {
          batch.pairs.push_back(PairBatch::kPaddingSlot);
          batch.lengths.push_back(PairLengths{});
        }
      }
    }
    close();
  }
  return batches;
}

// Where group g's words end: the next group's first word, or the batch's end.
inline std::uint64_t group_words_end(const PairBatch& batch, std::size_t g) {
  return g + 1 < batch.groups.size() ? batch.groups[g + 1].query_word : batch.words;
}

// Packs groups [first_group, end_group) of the batch's letters, `code_bits`
// per code, little end first: word w of a pair holds letters
// [w * per_word, (w + 1) * per_word). Padding words are 0. A group's words
// are one contiguous range, so threads may pack disjoint group ranges of
// the same `words` at once.
inline void pack_pair_groups(const PairBatch& batch, std::span<const PairInput> pairs,
                             const std::uint8_t* query_codes, const std::uint8_t* target_codes,
                             int code_bits, std::span<std::uint32_t> words, std::size_t first_group,
                             std::size_t end_group) {
  using namespace align::pairs;
  if (first_group >= end_group) return;
  const auto per_word = static_cast<std::uint32_t>(32 / code_bits);
  std::fill(words.begin() + static_cast<std::ptrdiff_t>(batch.groups[first_group].query_word),
            words.begin() + static_cast<std::ptrdiff_t>(group_words_end(batch, end_group - 1)), 0u);
  const auto pack = [&](const std::uint8_t* codes, std::uint32_t length, std::uint64_t first) {
    for (std::uint32_t w = 0; w * per_word < length; ++w) {
      const std::uint32_t count = std::min(per_word, length - w * per_word);
      std::uint32_t word = 0;
      for (std::uint32_t i = 0; i < count; ++i)
        word |= std::uint32_t{codes[w * per_word + i]} << (code_bits * static_cast<int>(i));
      words[first + std::uint64_t{w} * kGroup] = word;
    }
  };
  for (std::size_t slot = first_group * kGroup; slot < end_group * kGroup; ++slot) {
    const std::uint32_t p = batch.pairs[slot];
    if (p == PairBatch::kPaddingSlot) continue;
    const PairGroup& g = batch.groups[slot / kGroup];
    const std::uint64_t lane = slot % kGroup;
    pack(query_codes + pairs[p].query, pairs[p].m, g.query_word + lane);
    pack(target_codes + pairs[p].target, pairs[p].n, g.target_word + lane);
  }
}

// The whole batch's letters (pack_pair_groups over every group).
inline void pack_pair_words(const PairBatch& batch, std::span<const PairInput> pairs,
                            const std::uint8_t* query_codes, const std::uint8_t* target_codes,
                            int code_bits, std::span<std::uint32_t> words) {
  pack_pair_groups(batch, pairs, query_codes, target_codes, code_bits, words, 0,
                   batch.groups.size());
}

class DevicePairScorer {
 public:
  DevicePairScorer() = default;

  // The scoring parameters this engine takes (those of DeviceTargetSet).
  [[nodiscard]] static Status can_implement(const ScoreParams& params);

  // out[k]: query k against target k, score and end cell exactly as
  // reference_score. Codes are letter codes below params.alphabet_size;
  // sequence k is codes[offsets[k], offsets[k + 1]). budget_bytes bounds
  // the device memory of one batch (0: a share of what is free); tests
  // lower it to force many batches. The loop's host threads check the
  // codes and pack the letters. Blocks until the scores are on the host.
  [[nodiscard]] Status score(const ScoreParams& params, std::span<const std::uint8_t> query_codes,
                             std::span<const std::uint64_t> query_offsets,
                             std::span<const std::uint8_t> target_codes,
                             std::span<const std::uint64_t> target_offsets,
                             std::span<PairScore> out, std::uint64_t budget_bytes = 0,
                             bool force_wide_edges = false, const HostLoop& loop = {});

  // Of the last score() call: seconds inside the kernels (device events),
  // and the number of launches.
  [[nodiscard]] double kernel_seconds() const noexcept { return kernel_seconds_; }
  [[nodiscard]] std::size_t batches() const noexcept { return batches_; }

 private:
  double kernel_seconds_ = 0;
  std::size_t batches_ = 0;
  DevicePool scratch_pool_;
  Stream stream_;
};

}  // namespace seqfuse::gpu
