// The 16-bit search kernel's device code run on the CPU, thread by thread:
// the target layout (search16::build_target_layout, the very function
// DeviceTargetSet uploads), the per-chunk query profile, the per-thread DP
// over two packed lanes (search16::score_lanes_local and _global with dpx.cuh's portable s16x2
// arithmetic, whose results the DPX instructions equal by definition), the
// saturation and bound flags, and the host's scatter and 32-bit rerun
// decision (search16::scatter16). Reruns are stood in for by reference_score
// (the 32-bit kernel is checked on the device by tests/gpu). Every pair must
// equal reference_score: score and end cell. CI runs it.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "align/gpu_params.hpp"
#include "align/reference.hpp"
#include "core/parallel.hpp"
#include "gpu/align/search16_dp.hpp"
#include "gpu/align/search16_lanes.hpp"
#include "test_align_support.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::AlignResult;
using seqfuse::align::GapPenalties;
using seqfuse::align::ScoringScheme;
namespace gpu = seqfuse::gpu;
namespace s16 = seqfuse::gpu::search16;
namespace test = seqfuse::align::test;

using Flat = test::FlatCodes;

using seqfuse::align::gpu_score_params;

// The block's chunk profile of a query pair, as score_db16.cu's
// BlockProfile fills it (one emulated thread filling every entry), over a
// poisoned buffer.
struct HostChunks {
  const std::vector<int>* matrix;
  int alphabet;
  const std::uint8_t* query0;
  int m0;
  const std::uint8_t* query1;
  int m1;
  int open;
  std::vector<std::uint32_t> buffer = std::vector<std::uint32_t>(s16::kProfileSize);
  int calls = 0;
  const std::uint32_t* operator()(int i0) {
    CHECK(i0 == calls * s16::kRows);  // every chunk, in order
    ++calls;
    std::fill(buffer.begin(), buffer.end(), 0xCFC7CFC7u);
    s16::fill_profile(buffer.data(), matrix->data(), alphabet, query0, m0, query1, m1, i0, open, 0,
                      1);
    return buffer.data();
  }
};

// The same for a local launch's lane plan (LaneChunks in score_db16.cu):
// each chunk's profile holds each lane's query from the chunk's row on.
struct HostLaneChunks {
  const std::vector<int>* matrix;
  int alphabet;
  const Flat* queries;
  std::uint32_t first;  // launch query 0
  int open;
  std::vector<std::uint32_t> buffer = std::vector<std::uint32_t>(s16::kProfileSize);
  int calls = 0;
  int length(int q) const { return static_cast<int>((*queries)[first + q].size()); }
  const std::uint32_t* operator()(const s16::LaneChunk& c) {
    ++calls;
    const std::uint8_t* query[2] = {nullptr, nullptr};
    int rows[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      if (c.query[k] == s16::kIdleLane) continue;
      query[k] = queries->codes.data() + queries->offsets[first + c.query[k]] + c.row[k];
      rows[k] = length(c.query[k]) - c.row[k];
    }
    std::fill(buffer.begin(), buffer.end(), 0xCFC7CFC7u);
    s16::fill_profile(buffer.data(), matrix->data(), alphabet, query[0], rows[0], query[1], rows[1],
                      0, open, 0, 1);
    return buffer.data();
  }
};

struct Emulated {
  std::vector<gpu::PairScore> out;  // out[q * targets + t], reruns filled in
  std::vector<char> flagged;        // by (q, t): the 16-bit kernel said kRerun
  std::vector<std::uint32_t> rerun_queries;
  std::uint64_t flagged_pairs = 0;
  std::vector<int> partner_length;  // by query: the other lane's query length (0: none)
};

// Slots are sorted longest first, every letter sits at its interleaved
// place, padding holds kPadCode, and neighbouring slots of a group are
// neighbouring bytes.
void require_layout(const s16::TargetLayout& l, const Flat& targets) {
  REQUIRE(l.order.size() == targets.size());
  REQUIRE(l.interleaved % gpu::kSlotGroup == 0);
  REQUIRE(l.codes.size() == l.interleaved);
  std::vector<char> seen(targets.size(), 0);
  std::vector<char> owned(l.interleaved, 0);
  std::size_t misplaced = 0;
  for (std::size_t s = 0; s < l.order.size(); ++s) {
    const std::uint32_t k = l.order[s];
    seen[k] = 1;
    REQUIRE(l.slot_len[s] == targets[k].size());
    if (s > 0) CHECK(l.slot_len[s] <= l.slot_len[s - 1]);
    if (s % 2 == 1) CHECK(l.slot_base[s] == l.slot_base[s - 1] + 1);
    for (std::size_t j = 0; j < targets[k].size(); ++j) {
      const std::uint64_t at = l.slot_base[s] + j * gpu::kSlotGroup;
      misplaced += l.codes[at] != targets[k][j];
      owned[at] = 1;
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(seen.size()));
  CHECK(misplaced == 0);
  std::size_t bad_pad = 0;
  for (std::size_t at = 0; at < l.interleaved; ++at)
    bad_pad += !owned[at] && l.codes[at] != s16::kPadCode;
  CHECK(bad_pad == 0);
}

// What a launch starts from: fresh device memory holds anything, so the
// edges (one strip per pair) and the output are poisoned; and its (pair,
// slot) items in a shuffled order, as blocks and threads run.
struct LaunchStart {
  std::vector<s16::Edge16> edges;
  std::vector<std::uint64_t> items;
};
LaunchStart start_launch(std::size_t pairs, std::uint64_t cells, std::uint32_t count,
                         std::size_t slots, std::mt19937_64& rng,
                         std::vector<gpu::PairScore>& by_slot) {
  LaunchStart start;
  start.edges.assign(pairs * cells + 1, s16::Edge16{0xA5A5A5A5u, 0x5A5A5A5Au});
  by_slot.assign(count * slots, gpu::PairScore{-7777, -7, -7});
  start.items.resize(pairs * slots);
  std::iota(start.items.begin(), start.items.end(), std::uint64_t{0});
  std::shuffle(start.items.begin(), start.items.end(), rng);
  return start;
}

// A local launch of a plan_launches16 plan, as score_narrow hands it to the
// kernel: the launch's pairs start at lanes.begin[begin_base], whose entries
// index every launch's chunks as one array.
void run_local_launch(const s16::TargetLayout& l, const gpu::ScoreParams& params,
                      const s16::Params16& p16, const Flat& queries, const s16::LanePlan& lanes,
                      const s16::Launch16& launch, std::mt19937_64& rng,
                      std::vector<gpu::PairScore>& by_slot) {
  const std::size_t slots = l.order.size();
  const std::uint32_t first = launch.first, count = launch.count, pairs = launch.pairs;
  const std::uint32_t* begins = lanes.begin.data() + launch.begin_base;  // LanePlanView::begin
  const std::uint64_t cells = s16::edge_cells16(l);
  auto [edges, items] = start_launch(pairs, cells, count, slots, rng, by_slot);
  for (const std::uint64_t item : items) {
    const std::size_t pair = item / slots, slot = item % slots;
    HostLaneChunks chunks{&params.matrix, params.alphabet_size, &queries, first, params.gap_open};
    const std::uint32_t begin = begins[pair];
    const int size = static_cast<int>(begins[pair + 1] - begin);
    int emitted = 0;
    s16::score_lanes_local(l.codes.data() + l.slot_base[slot],
                           edges.data() + pair * cells + l.slot_base[slot],
                           static_cast<int>(l.slot_len[slot]), lanes.chunks.data() + begin, size,
                           p16, chunks, [&](int y, const gpu::PairScore& r) {
                             by_slot[static_cast<std::size_t>(y) * slots + slot] = r;
                             ++emitted;
                           });
    CHECK(chunks.calls == size);
    std::size_t carried = 0;  // queries whose last chunk is in this pair's plan
    for (int c = 0; c < size; ++c)
      for (int k = 0; k < 2; ++k) {
        const s16::LaneChunk& chunk = lanes.chunks[begin + c];
        if (chunk.query[k] != s16::kIdleLane &&
            chunk.row[k] + s16::kRows >= static_cast<int>(queries[first + chunk.query[k]].size()))
          ++carried;
      }
    CHECK(emitted == static_cast<int>(carried));
  }
}

// A global launch: queries in pairs (first, first + 1), ...
void run_global_launch(const s16::TargetLayout& l, const gpu::ScoreParams& params,
                       const s16::Params16& p16, const Flat& queries, std::uint32_t first,
                       std::uint32_t count, std::mt19937_64& rng,
                       std::vector<gpu::PairScore>& by_slot) {
  const std::size_t slots = l.order.size();
  const std::size_t pairs = (count + 1) / 2;
  const std::uint64_t cells = s16::edge_cells16(l);
  auto [edges, items] = start_launch(pairs, cells, count, slots, rng, by_slot);
  for (const std::uint64_t item : items) {
    const std::size_t pair = item / slots, slot = item % slots;
    const std::size_t y0 = 2 * pair, y1 = y0 + 1;
    const std::size_t q0 = first + y0, q1 = first + y1;
    const int m0 = static_cast<int>(queries[q0].size());
    const int m1 = y1 < count ? static_cast<int>(queries[q1].size()) : 0;
    const int n = static_cast<int>(l.slot_len[slot]);
    const std::uint64_t base = l.slot_base[slot];
    HostChunks chunks{&params.matrix,
                      params.alphabet_size,
                      queries.codes.data() + queries.offsets[q0],
                      m0,
                      y1 < count ? queries.codes.data() + queries.offsets[q1] : nullptr,
                      m1,
                      params.gap_open};
    gpu::PairScore r0{-6666, -6, -6}, r1{-6666, -6, -6};
    s16::score_lanes_global(l.codes.data() + base, edges.data() + pair * cells + base, m0, m1, n,
                            p16, chunks, r0, r1);
    CHECK(chunks.calls == (std::max(m0, m1) + s16::kRows - 1) / s16::kRows);
    by_slot[y0 * slots + slot] = r0;
    if (y1 < count) by_slot[y1 * slots + slot] = r1;
  }
}

// What DeviceTargetSet::score does on the 16-bit path, launch by launch.
// The launches come from plan_launches16 with at most per_launch queries
// each and edge memory to spare; local lanes are planned as for
// `plan_slots` targets (1.19 M: a big search's part, whose lanes are shared
// where that pays; the real count: one pair per two queries).
Emulated emulate(const ScoringScheme& scheme, AlignMode mode, const Flat& queries,
                 const Flat& targets, std::uint32_t per_launch, std::uint64_t plan_slots,
                 std::mt19937_64& rng) {
  const gpu::ScoreParams params = gpu_score_params(scheme, mode);
  const s16::Params16 p16 = s16::make_params16(params);
  REQUIRE(s16::params_fit(p16));
  const s16::TargetLayout l = s16::build_target_layout(targets.codes, targets.offsets);
  require_layout(l, targets);
  const std::size_t slots = l.order.size();
  std::vector<std::uint32_t> lengths;
  for (std::size_t q = 0; q < queries.size(); ++q)
    lengths.push_back(static_cast<std::uint32_t>(queries[q].size()));
  const bool local = mode == AlignMode::local;
  const s16::Launches16 plan = s16::plan_launches16(
      local, lengths, plan_slots != 0 ? plan_slots : slots, {per_launch, UINT64_MAX / 4, 1, 0});
  Emulated e;
  e.out.assign(queries.size() * slots, gpu::PairScore{-9999, -9, -9});
  e.flagged.assign(queries.size() * slots, 0);
  e.partner_length.assign(queries.size(), 0);
  for (const s16::Launch16& launch : plan.launches)
    for (std::uint32_t y = 0; y < launch.count; ++y)
      if ((y ^ 1) < launch.count)
        e.partner_length[launch.first + y] =
            static_cast<int>(queries[launch.first + (y ^ 1)].size());
  std::vector<gpu::PairScore> by_slot;
  for (const s16::Launch16& launch : plan.launches) {
    const std::uint32_t first = launch.first, count = launch.count;
    if (local)
      run_local_launch(l, params, p16, queries, plan.lanes, launch, rng, by_slot);
    else
      run_global_launch(l, params, p16, queries, first, count, rng, by_slot);
    for (std::uint32_t q = 0; q < count; ++q)
      for (std::size_t s = 0; s < slots; ++s)
        if (by_slot[q * slots + s].score == s16::kRerun)
          e.flagged[(first + q) * slots + l.order[s]] = 1;
    e.flagged_pairs += s16::scatter16(
        by_slot, first, count, slots, e.rerun_queries,
        [&](std::uint32_t q, std::uint32_t s, const gpu::PairScore& r) {
          e.out[q * slots + l.order[s]] = r;
        },
        seqfuse::host_loop(3));  // the workers' path, as on the device
  }
  // The 32-bit rerun of whole rows (reference_score stands in for the kernel).
  for (const std::uint32_t q : e.rerun_queries)
    for (std::size_t t = 0; t < slots; ++t) {
      const AlignResult r = seqfuse::align::reference_score(mode, scheme, queries[q], targets[t]);
      e.out[q * slots + t] = gpu::PairScore{r.score, r.query_end, r.target_end};
    }
  return e;
}

// Every pair equals the reference; flags are exactly the pairs 16 bits
// cannot score (local: best >= sat_limit; global: the a-priori bound on the
// thread's longer query fails). Returns the number of flagged pairs.
std::uint64_t check_against_reference(const ScoringScheme& scheme, AlignMode mode,
                                      const Flat& queries, const Flat& targets,
                                      std::mt19937_64& rng, std::uint32_t per_launch = 3,
                                      std::uint64_t plan_slots = 1'190'000) {
  const Emulated e = emulate(scheme, mode, queries, targets, per_launch, plan_slots, rng);
  const s16::Params16 p16 = s16::make_params16(gpu_score_params(scheme, mode));
  std::size_t wrong = 0, wrong_flags = 0;
  std::vector<char> query_flagged(queries.size(), 0);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const AlignResult want =
          seqfuse::align::reference_score(mode, scheme, queries[q], targets[t]);
      const gpu::PairScore& got = e.out[q * targets.size() + t];
      const bool flagged = e.flagged[q * targets.size() + t];
      query_flagged[q] |= flagged;
      const std::int64_t m = static_cast<std::int64_t>(queries[q].size());
      const std::int64_t n = static_cast<std::int64_t>(targets[t].size());
      bool expect_flag = false;
      if (m > 0 && n > 0) {
        if (mode == AlignMode::local)
          expect_flag = want.score >= p16.sat_limit;
        else
          expect_flag =
              !s16::global_pair_fits(std::max<std::int64_t>(m, e.partner_length[q]), n, p16);
      }
      if (flagged != expect_flag && ++wrong_flags <= 5)
        UNSCOPED_INFO("query " << q << " (" << m << ") target " << t << " (" << n << "): flagged "
                               << flagged << ", reference " << want.score);
      if (got.score == want.score && got.query_end == want.query_end &&
          got.target_end == want.target_end)
        continue;
      if (++wrong <= 5)
        UNSCOPED_INFO("query " << q << " (" << m << ") target " << t << " (" << n << "): emulated "
                               << got.score << " @" << got.query_end << "," << got.target_end
                               << " reference " << want.score << " @" << want.query_end << ","
                               << want.target_end);
    }
  }
  CHECK(wrong == 0);
  CHECK(wrong_flags == 0);
  // The rerun decision: exactly the queries with a flagged pair, once each.
  std::vector<std::uint32_t> expected;
  for (std::uint32_t q = 0; q < queries.size(); ++q)
    if (query_flagged[q]) expected.push_back(q);
  CHECK(e.rerun_queries == expected);
  return e.flagged_pairs;
}

}  // namespace

TEST_CASE("packed s16x2 arithmetic wraps per lane and keeps the lanes apart", "[align][search16]") {
  using gpu::pack_s16x2;
  CHECK(gpu::lane0_s16(pack_s16x2(-1, 7)) == -1);
  CHECK(gpu::lane1_s16(pack_s16x2(-1, 7)) == 7);
  CHECK(gpu::lane1_s16(pack_s16x2(5, -32768)) == -32768);
  const std::uint32_t top = pack_s16x2(32767, -3);
  const std::uint32_t sum = gpu::add_s16x2(top, pack_s16x2(1, -32767));
  CHECK(gpu::lane0_s16(sum) == -32768);  // wraps, no carry into lane 1
  CHECK(gpu::lane1_s16(sum) == 32766);   // -3 - 32767 wraps to 32766
  CHECK(gpu::add_max_s16x2(pack_s16x2(10, -20), pack_s16x2(-1, -1), pack_s16x2(12, -30)) ==
        pack_s16x2(12, -21));
  CHECK(gpu::add_max_relu_s16x2(pack_s16x2(10, -20), pack_s16x2(-1, -1), pack_s16x2(3, -30)) ==
        pack_s16x2(9, 0));
  CHECK(gpu::max_s16x2(pack_s16x2(-5, 4), pack_s16x2(-6, 9)) == pack_s16x2(-5, 9));
  CHECK(gpu::max3_s16x2(pack_s16x2(-5, 4), pack_s16x2(-6, 9), pack_s16x2(-7, -9)) ==
        pack_s16x2(-5, 9));
  CHECK(gpu::max3_relu_s16x2(pack_s16x2(-5, 4), pack_s16x2(-6, 9), pack_s16x2(-7, 11)) ==
        pack_s16x2(0, 11));
  // The "minus infinity" of score_lanes: -32768 + extend, minus extend.
  CHECK(gpu::add_max_s16x2(gpu::splat_s16x2(-32768 + 3), gpu::splat_s16x2(-3),
                           gpu::splat_s16x2(-32768)) == gpu::splat_s16x2(-32768));
}

TEST_CASE("lane plans: queries one after another on balanced lanes, shared only where it pays",
          "[align][search16]") {
  static_assert(s16::kRows == 32, "the chunk counts below are for 32-row chunks");
  // The big search's first launch (issue 18): 47, 29, 22, 20, 12 and 8
  // chunks. One pair per two queries sweeps 47 + 22 + 12 = 81 chunks; one
  // pair whose lanes carry 47 + 20 and 29 + 22 + 12 + 8 queries' chunks, 71.
  const std::vector<std::uint32_t> big = {1489, 921, 686, 635, 361, 237};
  const s16::LanePlan one = s16::plan_lanes(big, 1);
  REQUIRE(one.begin == std::vector<std::uint32_t>{0, 71});
  const s16::LanePlan three = s16::plan_lanes(big, 3);
  REQUIRE(three.begin == std::vector<std::uint32_t>{0, 47, 69, 81});
  // Every query's rows once, in order, each from a chunk boundary.
  for (const s16::LanePlan* plan : {&one, &three}) {
    std::vector<std::uint32_t> next_row(big.size(), 0);
    for (const s16::LaneChunk& c : plan->chunks)
      for (int k = 0; k < 2; ++k) {
        if (c.query[k] == s16::kIdleLane) continue;
        CHECK(static_cast<std::uint32_t>(c.row[k]) == next_row[c.query[k]]);
        next_row[c.query[k]] += s16::kRows;
      }
    for (std::size_t q = 0; q < big.size(); ++q)
      CHECK(next_row[q] == (big[q] + s16::kRows - 1) / s16::kRows * s16::kRows);
  }
  // An empty query takes one chunk, so that it is reported.
  const s16::LanePlan empty = s16::plan_lanes(std::vector<std::uint32_t>{0}, 1);
  REQUIRE(empty.chunks.size() == 1);
  CHECK(empty.chunks[0].query[0] == 0);
  CHECK(empty.chunks[0].query[1] == s16::kIdleLane);
  // 1.19 M targets keep the device busy with one pair: shared (71 <= 0.9 x
  // 81). 20,000 targets want more pairs, and queries of one length gain
  // nothing from sharing: one pair per two.
  CHECK(s16::choose_lane_plan(big, 1'190'000).begin.size() == 2);
  // 200 queries of 10 chunks on 106 lanes: 94 lanes of two, 12 of one, so
  // 47 x 20 + 6 x 10 sweeps, as many as 100 pairs of one query each.
  const std::vector<std::uint32_t> even(200, 300);
  CHECK(s16::lane_pairs(200, 20'000) == 53);
  CHECK(s16::plan_lanes(even, 53).chunks.size() == 1000);
  CHECK(s16::choose_lane_plan(even, 20'000).begin.size() == 101);
}

TEST_CASE("target layout: longest first, ties in input order, both sorting paths",
          "[align][search16]") {
  std::mt19937_64 rng(test::test_seed());
  for (const std::uint32_t giant : {0u, 1u << 20}) {  // 2^20 letters: the keys' sort
    INFO("giant target " << giant);
    std::vector<std::uint64_t> offsets{0};
    for (int k = 0; k < 5000; ++k) offsets.push_back(offsets.back() + rng() % 40);  // many ties
    if (giant != 0) offsets.insert(offsets.begin() + 1000, offsets[999] + giant);
    for (std::size_t k = 1000; giant != 0 && k + 1 < offsets.size(); ++k) offsets[k + 1] += giant;
    const std::size_t count = offsets.size() - 1;
    std::vector<std::uint32_t> expected(count);
    std::iota(expected.begin(), expected.end(), 0u);
    const auto length = [&](std::uint32_t k) { return offsets[k + 1] - offsets[k]; };
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return length(a) > length(b); });
    const s16::TargetLayout l = s16::plan_target_layout(offsets);
    REQUIRE(l.order == expected);
    std::uint64_t interleaved = 0;
    for (std::size_t s = 0; s < count; ++s) {
      CHECK(l.slot_len[s] == length(l.order[s]));
      const std::size_t lane = s % gpu::kSlotGroup;
      if (lane == 0) interleaved += std::uint64_t{l.slot_len[s]} * gpu::kSlotGroup;
      CHECK(l.slot_base[s] ==
            interleaved - std::uint64_t{l.slot_len[s - lane]} * gpu::kSlotGroup + lane);
    }
    CHECK(l.interleaved == interleaved);
    if (giant != 0) CHECK(l.order.front() == 999);
  }
}

TEST_CASE("launch plans: shared lanes take as many queries as their edges allow",
          "[align][search16]") {
  // The big search's part: 10 queries against 1.19 M targets. One query pair
  // (lane pair) of edges is 1 unit, a query's long-target edges 0.01.
  const std::vector<std::uint32_t> ten = {1489, 921, 686, 635, 361, 237, 236, 200, 150, 100};
  const s16::LaunchBudget roomy{16, 320, 100, 1};  // 6 paired queries fit (51 each)
  CHECK(s16::paired_queries_per_launch(roomy) == 6);
  // Global: query pairs, 6 + 4.
  const s16::Launches16 global = s16::plan_launches16(false, ten, 1'190'000, roomy);
  REQUIRE(global.launches.size() == 2);
  CHECK(global.launches[1].first == 6);
  CHECK(global.launches[1].count == 4);
  CHECK(global.launches[1].pairs == 2);
  CHECK(global.lanes.chunks.empty());
  // Local: all ten on one lane pair, in one launch.
  const s16::Launches16 local = s16::plan_launches16(true, ten, 1'190'000, roomy);
  REQUIRE(local.launches.size() == 1);
  CHECK(local.launches[0].count == 10);
  CHECK(local.launches[0].pairs == 1);
  // Too little edge memory for that (110): the paired count, 2 queries a
  // launch, each launch's lanes after the previous one's in one plan.
  const s16::LaunchBudget tight{16, 105, 100, 1};
  const s16::Launches16 split = s16::plan_launches16(true, ten, 1'190'000, tight);
  REQUIRE(split.launches.size() == 5);
  std::uint32_t first = 0;
  for (const s16::Launch16& l : split.launches) {
    CHECK(l.first == first);
    CHECK(l.count == 2);
    CHECK(l.pairs * tight.pair_bytes + l.count * tight.query_bytes <= tight.edge_budget);
    // The launch's chunks: its two queries' rows, and nothing else.
    const std::uint32_t begin = split.lanes.begin[l.begin_base];
    const std::uint32_t end = split.lanes.begin[l.begin_base + l.pairs];
    std::uint32_t rows = 0;
    for (std::uint32_t c = begin; c < end; ++c)
      for (int k = 0; k < 2; ++k) {
        const std::int32_t q = split.lanes.chunks[c].query[k];
        if (q == s16::kIdleLane) continue;
        CHECK((q == 0 || q == 1));
        rows += s16::kRows;
      }
    const auto chunks = [](std::uint32_t len) { return (len + s16::kRows - 1) / s16::kRows; };
    CHECK(rows == (chunks(ten[first]) + chunks(ten[first + 1])) * s16::kRows);
    first += l.count;
  }
  CHECK(split.lanes.begin.back() == split.lanes.chunks.size());
  // The host's score buffer caps a launch: 4 queries at most.
  const s16::Launches16 capped =
      s16::plan_launches16(true, ten, 1'190'000, s16::LaunchBudget{4, 320, 100, 1});
  REQUIRE(capped.launches.size() == 3);
  CHECK(capped.launches[2].count == 2);
}

TEST_CASE("emulated 16-bit search scores equal reference_score on random inputs",
          "[align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        const std::string& letters = scheme_case.letters;
        Flat queries, targets;
        // 11 queries: global launches of 2 leave the last query alone in its lanes.
        for (int len : {0, 1, 2, s16::kRows - 1, s16::kRows, s16::kRows + 1, rng.uniform(1, 150),
                        rng.uniform(1, 150), rng.uniform(1, 150)})
          queries.add(test::encode(scheme, rng.random(letters, static_cast<std::size_t>(len))));
        const std::string related = rng.random(letters, 90);
        queries.add(test::encode(scheme, related));
        // All the same letter, against a run of it (ties everywhere).
        queries.add(test::encode(scheme, std::string(45, letters[0])));
        // 47 targets: an odd count leaves the last slot without a partner.
        for (const std::string& s : test::search_test_targets(rng, letters, related, 47))
          targets.add(test::encode(scheme, s));
        check_against_reference(scheme, mode, queries, targets, rng.rng());
        // Local lanes also as a small search plans them: one pair per two queries.
        if (mode == AlignMode::local)
          check_against_reference(scheme, mode, queries, targets, rng.rng(), 3, /*plan_slots=*/0);
      });
}

TEST_CASE("emulated 16-bit search: saturating pairs are flagged and rerun, their partners exact",
          "[align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme blosum62 = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  // W-W scores 11: 3,000 W reach 33,000; local sat_limit is 32,767 - 11 -
  // 11 (open) = 32,745, so 2,977 W (32,747) are flagged and 2,976 W (32,736)
  // are exact.
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    Flat queries, targets;
    queries.add(test::encode(blosum62, std::string(3000, 'W')));
    queries.add(test::encode(blosum62, rng.random(amino, 300)));
    const std::string w_mix =
        std::string(1500, 'W') + rng.random(amino, 40) + std::string(1500, 'W');
    queries.add(test::encode(blosum62, w_mix));
    // Queries pair up in one thread (launches of 2): the saturating 3,000 W
    // beside an exact random query of another length, w_mix alone; the
    // targets' lengths sit on both sides of the saturation point.
    for (int len : {3000, 2999, 2978, 2977, 2976, 2960, 2900, 1200, 1199, 40, 3})
      targets.add(test::encode(blosum62, std::string(static_cast<std::size_t>(len), 'W')));
    targets.add(test::encode(blosum62, rng.mutate(std::string(3000, 'W'), amino, 0.02)));
    targets.add(test::encode(blosum62, rng.random(amino, 2990)));
    targets.add(test::encode(blosum62, w_mix));
    const std::uint64_t flagged =
        check_against_reference(blosum62, mode, queries, targets, rng.rng(), 2);
    CHECK(flagged > 0);
    UNSCOPED_INFO("flagged pairs " << flagged);
  }
}

TEST_CASE("emulated 16-bit search: long pairs, global bounds with costly gaps, DNA",
          "[align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    // Proteins of a few thousand residues, related and not.
    const ScoringScheme blosum62 = ScoringScheme::builtin("blosum62", {11, 1});
    Flat queries, targets;
    const std::string base = rng.random(amino, 2500);
    queries.add(test::encode(blosum62, base));
    queries.add(test::encode(blosum62, rng.random(amino, 70)));
    targets.add(test::encode(blosum62, rng.mutate(base, amino, 0.15)));
    targets.add(test::encode(blosum62, base.substr(400, 1700)));
    targets.add(test::encode(blosum62, rng.random(amino, 3100)));
    check_against_reference(blosum62, mode, queries, targets, rng.rng());

    // Costly gaps: global values near -30,000; m + n around the bound.
    const ScoringScheme costly = ScoringScheme::match_mismatch(2, -3, {1000, 10});
    Flat q2, t2;
    q2.add(test::encode(costly, rng.random("ACGT", 40)));
    q2.add(test::encode(costly, rng.random("ACGT", 70)));
    for (int len : {2700, 2600, 2830, 2850, 2900})
      t2.add(test::encode(costly, rng.random("ACGT", static_cast<std::size_t>(len))));
    check_against_reference(costly, mode, q2, t2, rng.rng(), 1);

    // DNA with N, near-identical pairs at match 5.
    const ScoringScheme dna = ScoringScheme::match_mismatch(5, -4, {10, 1});
    Flat q3, t3;
    const std::string d = rng.random("ACGT", 3000);
    q3.add(test::encode(dna, d));
    t3.add(test::encode(dna, d));  // 15,000: exact in 16 bits
    t3.add(test::encode(dna, rng.mutate(d, "ACGTN", 0.03)));
    t3.add(test::encode(dna, std::string(2000, 'N')));
    check_against_reference(dna, mode, q3, t3, rng.rng());
  }
}
