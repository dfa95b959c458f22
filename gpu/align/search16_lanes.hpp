// Host-side planning of the 16-bit search kernel's launches (score_db.cu):
// which queries each launch takes and, for local alignment, the lanes that
// carry them (a pair of lanes sweeps a plan of chunks, search16_dp.hpp's
// score_lanes_local). Plain C++: unit-tested on the host.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "gpu/align/search16_dp.hpp"

namespace seqfuse::gpu::search16 {

// A launch's lanes for local alignment: pair p (blockIdx.y) sweeps
// chunks[begin[p] .. begin[p + 1]).
struct LanePlan {
  std::vector<std::uint32_t> begin{0};
  std::vector<LaneChunk> chunks;
};

// The queries of a launch (`lengths`, longest first) on 2 x `pairs` lanes
// that carry them one after another. Longest first, each query goes to the
// lane with the fewest chunks so far (an empty query takes one chunk, so
// that it is reported), and lanes of similar totals make a pair, so a
// pair's two lanes sweep about as many rows. Two queries per pair of lanes,
// one each, had left 15 % of the big search's lane-rows past the shorter
// query (run 30).
inline LanePlan plan_lanes(std::span<const std::uint32_t> lengths, std::uint32_t pairs) {
  const std::size_t lanes = 2 * std::size_t{pairs};
  std::vector<std::vector<std::int32_t>> queries(lanes);
  std::vector<std::uint64_t> total(lanes, 0);  // chunks
  for (std::size_t q = 0; q < lengths.size(); ++q) {
    const auto k =
        static_cast<std::size_t>(std::min_element(total.begin(), total.end()) - total.begin());
    queries[k].push_back(static_cast<std::int32_t>(q));
    total[k] += std::max<std::uint64_t>(1, (std::uint64_t{lengths[q]} + kRows - 1) / kRows);
  }
  std::vector<std::size_t> order(lanes);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return total[a] > total[b]; });
  LanePlan plan;
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::size_t lane[2] = {order[2 * p], order[2 * p + 1]};
    std::size_t next[2] = {0, 0};  // the lane's query, and its next row
    std::uint32_t row[2] = {0, 0};
    for (std::uint64_t c = 0; c < std::max(total[lane[0]], total[lane[1]]); ++c) {
      LaneChunk chunk{{kIdleLane, kIdleLane}, {0, 0}};
      for (int k = 0; k < 2; ++k) {
        const std::vector<std::int32_t>& list = queries[lane[k]];
        if (next[k] == list.size()) continue;
        chunk.query[k] = list[next[k]];
        chunk.row[k] = static_cast<std::int32_t>(row[k]);
        row[k] += kRows;
        if (row[k] >= lengths[static_cast<std::size_t>(list[next[k]])]) {
          ++next[k];
          row[k] = 0;
        }
      }
      plan.chunks.push_back(chunk);
    }
    plan.begin.push_back(static_cast<std::uint32_t>(plan.chunks.size()));
  }
  return plan;
}

// Lane pairs for a local launch of `count` queries against `slots` targets:
// as few as keep about 8,192 blocks in the grid, so that lanes carry
// several queries; at most one pair per two queries. 8,192 blocks are about
// 16 waves of 4 blocks on each of an H100's 132 multiprocessors: with 8
// waves (4,096) the 500 x 20,000 search's last, part-filled wave of long
// blocks made it 12 % slower than one pair per two queries (run 36g).
inline std::uint32_t lane_pairs(std::uint32_t count, std::uint64_t slots) {
  constexpr std::uint64_t kBusyBlocks = 8192;
  const std::uint64_t blocks =
      std::max<std::uint64_t>(1, (slots + kBlockThreads - 1) / kBlockThreads);
  const std::uint64_t wanted = (kBusyBlocks + blocks - 1) / blocks;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>((count + 1) / 2, wanted));
}

// The plan a local launch runs: lanes shared by several queries
// (lane_pairs) where that saves at least a tenth of the chunk sweeps over
// one pair per two queries, else the latter. Fewer, longer blocks pay a
// part-filled last wave: the 500 x 20,000 search, whose similar queries
// pair well anyway, was 4 % slower on shared lanes (run 36h), where the
// big search's 10 queries took 12 % fewer sweeps and 8 % less time.
inline LanePlan choose_lane_plan(std::span<const std::uint32_t> lengths, std::uint64_t slots) {
  const auto count = static_cast<std::uint32_t>(lengths.size());
  const std::uint32_t full = (count + 1) / 2;
  LanePlan plan = plan_lanes(lengths, lane_pairs(count, slots));
  if (plan.begin.size() - 1 < full) {
    LanePlan one_each = plan_lanes(lengths, full);
    if (plan.chunks.size() * 10 > one_each.chunks.size() * 9) plan = std::move(one_each);
  }
  return plan;
}

// The launches of one 16-bit search: queries [first, first + count) of the
// upload each. Local launches run on `pairs` lane pairs of `lanes`, whose
// begin[] holds every launch's pairs back to back (begin_base: the launch's
// first entry) and indexes `lanes.chunks` as a whole, so that one upload
// serves them all.
struct Launch16 {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::uint32_t pairs = 0;       // blockIdx.y: lane pairs, or query pairs (global)
  std::uint32_t begin_base = 0;  // local: the launch's pairs start at lanes.begin[begin_base]
};
struct Launches16 {
  std::vector<Launch16> launches;
  LanePlan lanes;
};

// What one launch may hold: at most max_count queries (the host's score
// buffer, the grid's y limit) and edge_budget bytes of edges at pair_bytes
// per lane pair (query pair) and query_bytes per query (the long targets'
// kernel beside it).
struct LaunchBudget {
  std::uint32_t max_count = 1;
  std::uint64_t edge_budget = 0;
  std::uint64_t pair_bytes = 0;
  std::uint64_t query_bytes = 0;
};

// Queries per launch when each query pair needs its own edges (global
// alignment; any local plan of that many fits too): an even count where
// it can be, since a launch's odd query is alone in its lanes.
inline std::uint32_t paired_queries_per_launch(const LaunchBudget& b) {
  const std::uint64_t per_query = std::max<std::uint64_t>(1, b.pair_bytes / 2 + b.query_bytes);
  auto count = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(b.edge_budget / per_query, 1, std::max(b.max_count, 1u)));
  if (count > 1) count -= count % 2;
  return count;
}

// The launches of `lengths` (the upload's queries, longest first) against
// `slots` targets. Global: paired_queries_per_launch queries each. Local:
// as many as max_count where their lane plan's edges fit the budget, since
// lanes shared by several queries need one pair's edges, not one per two
// queries (the big search's 10 queries then take one launch per part, where
// the paired rule made two, 6 and 4); else the paired count.
inline Launches16 plan_launches16(bool local, std::span<const std::uint32_t> lengths,
                                  std::uint64_t slots, const LaunchBudget& budget) {
  Launches16 out;
  const auto queries = static_cast<std::uint32_t>(lengths.size());
  const std::uint32_t paired = paired_queries_per_launch(budget);
  for (std::uint32_t first = 0; first < queries;) {
    Launch16 launch{first, std::min(paired, queries - first), 0, 0};
    if (!local) {
      launch.pairs = (launch.count + 1) / 2;
    } else {
      std::uint32_t count = std::min(std::max(budget.max_count, 1u), queries - first);
      LanePlan plan = choose_lane_plan(lengths.subspan(first, count), slots);
      const auto pairs = static_cast<std::uint32_t>(plan.begin.size() - 1);
      if (count > launch.count &&
          pairs * budget.pair_bytes + count * budget.query_bytes > budget.edge_budget) {
        count = launch.count;
        plan = choose_lane_plan(lengths.subspan(first, count), slots);
      }
      launch.count = count;
      launch.pairs = static_cast<std::uint32_t>(plan.begin.size() - 1);
      launch.begin_base = static_cast<std::uint32_t>(out.lanes.begin.size() - 1);
      const auto chunk_base = static_cast<std::uint32_t>(out.lanes.chunks.size());
      out.lanes.chunks.insert(out.lanes.chunks.end(), plan.chunks.begin(), plan.chunks.end());
      for (std::size_t p = 1; p < plan.begin.size(); ++p)
        out.lanes.begin.push_back(chunk_base + plan.begin[p]);
    }
    out.launches.push_back(launch);
    first += launch.count;
  }
  return out;
}

}  // namespace seqfuse::gpu::search16
