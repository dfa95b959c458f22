// How the GPU traceback lays pairs out in device memory: host code only,
// plain C++, shared by traceback.cu and its CPU emulation test.
//
// Pairs are sorted longest first (query length, then target length, then
// input order) and cut into groups of kTraceGroup neighbours. A group shares
// one padded direction grid whose words are interleaved lane by lane, so
// the threads of a warp write neighbouring words; sorting keeps the padding
// small. Groups are packed into batches whose device memory stays under a
// budget: direction words (m x n / 2 bytes per pair, padded), the edge strip
// (8 bytes per target letter when the query is longer than one chunk), room
// for the CIGAR runs (m + n per pair), the job and its result.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu/align/score_pairs.hpp"
#include "gpu/align/trace_dp.hpp"

namespace seqfuse::align::trace {

inline constexpr std::uint32_t kTraceGroup = 32;
// Bounds that keep 32-bit run offsets and launch sizes safe.
inline constexpr std::uint64_t kMaxBatchRuns = std::uint64_t{1} << 31;
inline constexpr std::size_t kMaxBatchPairs = std::size_t{1} << 22;

struct PlanPair {
  std::uint64_t query = 0;  // first code of the query
  std::uint64_t target = 0;
  std::int32_t m = 0;
  std::int32_t n = 0;
};

struct TraceBatch {
  std::vector<TraceJob> jobs;        // job.out == its index here
  std::vector<std::uint32_t> pairs;  // jobs[k] traces input pair pairs[k]
  std::uint64_t words = 0;           // direction words (uint32)
  std::uint64_t edges = 0;           // edge cells
  std::uint64_t runs = 0;            // room for CIGAR runs (uint32)
  [[nodiscard]] std::uint64_t bytes() const {
    return words * sizeof(std::uint32_t) + edges * sizeof(EdgeCell) + runs * sizeof(std::uint32_t) +
           jobs.size() * (sizeof(TraceJob) + sizeof(TracedPair));
  }
};

struct TracePlan {
  std::vector<TraceBatch> batches;
  // Pairs whose own matrix does not fit the budget, or too long for one
  // GPU thread: the caller traces them on the CPU (the scalar reference).
  // Ascending.
  std::vector<std::uint32_t> refused;
};

namespace detail {

struct GroupSize {
  std::uint64_t words, edges, runs;
  [[nodiscard]] std::uint64_t bytes(std::size_t pairs) const {
    return words * sizeof(std::uint32_t) + edges * sizeof(EdgeCell) + runs * sizeof(std::uint32_t) +
           pairs * (sizeof(TraceJob) + sizeof(TracedPair));
  }
};

inline GroupSize group_size(std::span<const PlanPair> pairs, std::span<const std::uint32_t> group) {
  std::uint64_t max_m = 0, max_n = 0, runs = 0;
  for (std::uint32_t k : group) {
    max_m = std::max<std::uint64_t>(max_m, static_cast<std::uint64_t>(pairs[k].m));
    max_n = std::max<std::uint64_t>(max_n, static_cast<std::uint64_t>(pairs[k].n));
    runs += static_cast<std::uint64_t>(pairs[k].m) + static_cast<std::uint64_t>(pairs[k].n);
  }
  const std::uint64_t lanes = group.size();
  const bool any_cells = max_m > 0 && max_n > 0;
  return GroupSize{any_cells ? word_rows(static_cast<std::uint32_t>(max_m)) * max_n * lanes : 0,
                   max_m > static_cast<std::uint64_t>(kTraceRows) ? max_n * lanes : 0, runs};
}

inline void add_group(std::span<const PlanPair> pairs, std::span<const std::uint32_t> group,
                      const GroupSize& size, TraceBatch& batch) {
  std::uint64_t columns = 0;
  for (std::uint32_t k : group)
    columns = std::max<std::uint64_t>(columns, static_cast<std::uint64_t>(pairs[k].n));
  for (std::size_t lane = 0; lane < group.size(); ++lane) {
    const PlanPair& p = pairs[group[lane]];
    TraceJob job;
    job.query = p.query;
    job.target = p.target;
    job.words = batch.words + lane;
    job.edges = batch.edges + lane;
    job.columns = columns;
    job.m = p.m;
    job.n = p.n;
    job.stride = static_cast<std::uint32_t>(group.size());
    job.out = static_cast<std::uint32_t>(batch.jobs.size());
    batch.jobs.push_back(job);
    batch.pairs.push_back(group[lane]);
  }
  batch.words += size.words;
  batch.edges += size.edges;
  batch.runs += size.runs;
}

}  // namespace detail

// Plans batches of at most `budget_bytes` of device memory each. Pairs of
// more than `max_cells` cells are refused too: one GPU thread fills cells
// several times slower than a CPU core, so a lone huge pair is faster on
// the CPU (a warp per pair would change that).
//
// `wave_pairs` is the threads the device runs at once (0: no such limit). A
// batch's pairs are the kernel's threads, each running one pair start to
// end, so a batch of 1.4 waves takes as long as 2: batches are cut to whole
// waves, as many as the budget holds of the largest pair (pairs come
// longest first), at least one.
//
// The sort runs on the loop's threads (10 M pairs: 1.4 s on one core of the
// development machine, by an indirect stable sort).
inline TracePlan plan_traceback(std::span<const PlanPair> pairs, std::uint64_t budget_bytes,
                                std::uint64_t max_cells = UINT64_MAX, std::size_t wave_pairs = 0,
                                const gpu::HostLoop& loop = {}) {
  TracePlan plan;
  // One key per pair: longer queries first, then longer targets, then input
  // order (complemented lengths sort ascending).
  std::vector<gpu::PairOrderKey> keys;
  keys.reserve(pairs.size());
  for (std::uint32_t k = 0; k < pairs.size(); ++k) {
    const auto m = static_cast<std::uint32_t>(pairs[k].m);
    const auto n = static_cast<std::uint32_t>(pairs[k].n);
    if (std::uint64_t{m} * n > max_cells)
      plan.refused.push_back(k);
    else
      keys.push_back({std::uint64_t{~m} << 32 | ~n, k});
  }
  gpu::sort_pair_keys(keys, loop);
  std::vector<std::uint32_t> order(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) order[k] = keys[k].pair();
  keys = {};

  std::size_t max_pairs = kMaxBatchPairs;
  if (wave_pairs > 0 && !order.empty()) {
    const std::uint32_t largest[1] = {order.front()};
    const std::uint64_t fit = budget_bytes / detail::group_size(pairs, largest).bytes(1);
    const std::uint64_t waves = std::max<std::uint64_t>(fit / wave_pairs, 1);
    max_pairs =
        static_cast<std::size_t>(std::min<std::uint64_t>(waves * wave_pairs, kMaxBatchPairs));
  }
  max_pairs = std::max<std::size_t>(max_pairs, kTraceGroup);

  TraceBatch batch;
  std::size_t placed = 0;  // pairs in closed batches
  const auto open_batch = [&] {
    // Room for what the batch can take, so 4 M jobs are not copied as the
    // vectors grow.
    const std::size_t room = std::min(max_pairs, order.size() - placed);
    batch.jobs.reserve(room);
    batch.pairs.reserve(room);
  };
  const auto close_batch = [&] {
    placed += batch.jobs.size();
    if (!batch.jobs.empty()) plan.batches.push_back(std::move(batch));
    batch = TraceBatch{};
    open_batch();
  };
  open_batch();
  const auto place = [&](std::span<const std::uint32_t> group) {
    const detail::GroupSize size = detail::group_size(pairs, group);
    const bool fits = batch.bytes() + size.bytes(group.size()) <= budget_bytes &&
                      batch.runs + size.runs <= kMaxBatchRuns &&
                      batch.jobs.size() + group.size() <= max_pairs;
    if (!fits) close_batch();
    detail::add_group(pairs, group, size, batch);
  };

  for (std::size_t first = 0; first < order.size(); first += kTraceGroup) {
    const std::span<const std::uint32_t> group(
        order.data() + first, std::min<std::size_t>(kTraceGroup, order.size() - first));
    const detail::GroupSize size = detail::group_size(pairs, group);
    if (size.bytes(group.size()) <= budget_bytes && size.runs <= kMaxBatchRuns) {
      place(group);
      continue;
    }
    // Too big together: each pair on its own, or on the CPU when even one
    // pair's matrix is over the budget.
    for (std::size_t k = 0; k < group.size(); ++k) {
      const std::span<const std::uint32_t> one = group.subspan(k, 1);
      const detail::GroupSize own = detail::group_size(pairs, one);
      if (own.bytes(1) > budget_bytes || own.runs > kMaxBatchRuns)
        plan.refused.push_back(group[k]);
      else
        place(one);
    }
  }
  close_batch();
  std::sort(plan.refused.begin(), plan.refused.end());
  return plan;
}

}  // namespace seqfuse::align::trace
