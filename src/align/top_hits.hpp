// Choosing the hits a search keeps, for the GPU search path: the best
// targets of one query's row of scores, merged across the parts of a target
// set too large to be resident on the device at once. Plain C++ (CPU-tested).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu/align/pair_score.hpp"

namespace seqfuse::align {

// Targets [begin, end) of a target set, in input order.
struct TargetRange {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  [[nodiscard]] std::uint32_t size() const noexcept { return end - begin; }
};

// A kept hit of one query: the target (index in the whole set) and its score.
struct ScoredTarget {
  std::uint32_t target = 0;
  gpu::PairScore score;
};

// Decreasing score, ties in target order: the order CpuEngine::search keeps.
[[nodiscard]] inline bool better_hit(const ScoredTarget& a, const ScoredTarget& b) noexcept {
  return a.score.score != b.score.score ? a.score.score > b.score.score : a.target < b.target;
}

// No target left out of a row (a search); all against all leaves out the
// query itself (its own index).
inline constexpr std::size_t kNoSkip = static_cast<std::size_t>(-1);

// The `top` best of row (every one when top is 0) but row[skip], in
// better_hit order; `picked` holds their indices into row.
void select_top(std::span<const gpu::PairScore> row, std::size_t skip, std::size_t top,
                std::vector<std::uint32_t>& picked);

// kept becomes the `top` best (every one when top is 0) of kept and more,
// both already in better_hit order; so does the result.
void merge_top(std::vector<ScoredTarget>& kept, std::span<const ScoredTarget> more,
               std::size_t top);

// Merges into `kept` the best of one query's scores against `part` (row[k]
// is target part.begin + k), leaving out target `skip` (an index in the
// whole set: all against all leaves out the query itself, so that each
// record gets its best hits among all the others; kNoSkip otherwise).
void keep_top_of_part(std::span<const gpu::PairScore> row, TargetRange part, std::size_t skip,
                      std::size_t top, std::vector<ScoredTarget>& kept);

// Consecutive ranges covering every target, each holding at most
// `max_residues` residues, or a single target where one alone holds more
// (the device then says whether it fits). offsets: size() + 1 entries.
[[nodiscard]] std::vector<TargetRange> plan_target_parts(std::span<const std::uint64_t> offsets,
                                                         std::uint64_t max_residues);

// The length of the longest of targets [range.begin, range.end); offsets as
// above.
[[nodiscard]] std::uint64_t longest_target(std::span<const std::uint64_t> offsets,
                                           TargetRange range);

}  // namespace seqfuse::align
