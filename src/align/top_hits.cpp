#include "align/top_hits.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace seqfuse::align {

void select_top(std::span<const gpu::PairScore> row, std::size_t skip, std::size_t top,
                std::vector<std::uint32_t>& picked) {
  picked.resize(row.size());
  std::iota(picked.begin(), picked.end(), std::uint32_t{0});
  if (skip < row.size()) picked.erase(picked.begin() + static_cast<std::ptrdiff_t>(skip));
  const auto better = [&](std::uint32_t a, std::uint32_t b) {
    return row[a].score != row[b].score ? row[a].score > row[b].score : a < b;
  };
  if (top != 0 && picked.size() > top) {
    std::partial_sort(picked.begin(), picked.begin() + static_cast<std::ptrdiff_t>(top),
                      picked.end(), better);
    picked.resize(top);
  } else {
    std::sort(picked.begin(), picked.end(), better);
  }
}

void merge_top(std::vector<ScoredTarget>& kept, std::span<const ScoredTarget> more,
               std::size_t top) {
  std::vector<ScoredTarget> merged;
  const std::size_t total = kept.size() + more.size();
  merged.reserve(top == 0 ? total : std::min(top, total));
  auto a = kept.begin();
  auto b = more.begin();
  // A merge that stops once `top` are taken.
  while ((top == 0 || merged.size() < top) && (a != kept.end() || b != more.end())) {
    if (b == more.end() || (a != kept.end() && !better_hit(*b, *a)))
      merged.push_back(*a++);
    else
      merged.push_back(*b++);
  }
  kept = std::move(merged);
}

void keep_top_of_part(std::span<const gpu::PairScore> row, TargetRange part, std::size_t skip,
                      std::size_t top, std::vector<ScoredTarget>& kept) {
  thread_local std::vector<std::uint32_t> picked;  // scratch as large as a row
  thread_local std::vector<ScoredTarget> more;
  const std::size_t in_part =
      skip != kNoSkip && skip >= part.begin && skip < part.end ? skip - part.begin : kNoSkip;
  select_top(row, in_part, top, picked);
  more.clear();
  for (std::uint32_t k : picked) more.push_back({part.begin + k, row[k]});
  merge_top(kept, more, top);
}

std::vector<TargetRange> plan_target_parts(std::span<const std::uint64_t> offsets,
                                           std::uint64_t max_residues) {
  std::vector<TargetRange> parts;
  const std::size_t count = offsets.empty() ? 0 : offsets.size() - 1;
  for (std::size_t begin = 0; begin < count;) {
    std::size_t end = begin + 1;  // at least one target, however long
    while (end < count && offsets[end + 1] - offsets[begin] <= max_residues) ++end;
    parts.push_back({static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end)});
    begin = end;
  }
  return parts;
}

std::uint64_t longest_target(std::span<const std::uint64_t> offsets, TargetRange range) {
  std::uint64_t longest = 0;
  for (std::uint32_t k = range.begin; k < range.end; ++k)
    longest = std::max(longest, offsets[k + 1] - offsets[k]);
  return longest;
}

}  // namespace seqfuse::align
