// align-sw / align-nw on several GPU workers, the host side
// (device_split.hpp) with fake devices: targets and pairs split across
// workers, each worker's top hits per query merged back into exactly the
// hits one device keeps from the whole row (decreasing score, ties in target
// order, top N or all), and the chunk hand-over between worker threads and
// the writer: chunks in order, workers never far ahead, a failing worker or
// writer stopping the run without a hang.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "align/device_split.hpp"
#include "align/top_hits.hpp"
#include "core/error.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
using seqfuse::align::test::test_seed;

namespace {

const seqfuse::BindDevice kFakeBind = [](int) {};

std::vector<std::uint64_t> offsets_of(const std::vector<std::uint64_t>& lengths) {
  std::vector<std::uint64_t> offsets{0};
  for (std::uint64_t l : lengths) offsets.push_back(offsets.back() + l);
  return offsets;
}

// Scores of `queries` x `targets` pairs from few values, so ties are common
// within a worker's range and across ranges.
struct FakeScores {
  std::size_t queries = 0, targets = 0;
  std::vector<seqfuse::gpu::PairScore> rows;  // rows[q * targets + t]

  FakeScores(std::mt19937_64& random, std::size_t q, std::size_t t) : queries(q), targets(t) {
    std::uniform_int_distribution<int> value(0, 5);
    rows.resize(q * t);
    for (std::size_t k = 0; k < rows.size(); ++k)
      rows[k] = {value(random), static_cast<int>(k % 7), static_cast<int>(k % 11)};
  }
  [[nodiscard]] std::span<const seqfuse::gpu::PairScore> row(std::size_t q) const {
    return std::span(rows).subspan(q * targets, targets);
  }
};

AlignHit hit_of(std::uint32_t query, const ScoredTarget& s) {
  AlignHit hit{query, s.target, {}};
  hit.result.score = s.score.score;
  hit.result.query_end = s.score.query_end;
  hit.result.target_end = s.score.target_end;
  // A traced-looking result: the merge must carry (move) every field.
  hit.result.cigar = std::to_string(query) + "=" + std::to_string(s.target);
  return hit;
}

// What one device keeps: the whole row at once (select_top), per query.
std::vector<AlignHit> one_device_hits(const FakeScores& s, bool all_vs_all, std::size_t top,
                                      std::size_t first_query, std::size_t count) {
  std::vector<AlignHit> hits;
  std::vector<std::uint32_t> picked;
  for (std::size_t q = first_query; q < first_query + count; ++q) {
    select_top(s.row(q), all_vs_all ? q : kNoSkip, top, picked);
    for (std::uint32_t t : picked)
      hits.push_back(hit_of(static_cast<std::uint32_t>(q), {t, s.row(q)[t]}));
  }
  return hits;
}

// What worker `range` keeps of queries [first, first + count): its part of
// each row through keep_top_of_part, as the GPU worker does.
std::vector<AlignHit> worker_hits(const FakeScores& s, TargetRange range, bool all_vs_all,
                                  std::size_t top, std::size_t first_query, std::size_t count) {
  std::vector<AlignHit> hits;
  for (std::size_t q = first_query; q < first_query + count; ++q) {
    std::vector<ScoredTarget> kept;
    if (range.size() != 0)
      keep_top_of_part(s.row(q).subspan(range.begin, range.size()), range, all_vs_all ? q : kNoSkip,
                       top, kept);
    for (const ScoredTarget& k : kept) hits.push_back(hit_of(static_cast<std::uint32_t>(q), k));
  }
  return hits;
}

bool same_hits(const std::vector<AlignHit>& a, const std::vector<AlignHit>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].query != b[k].query || a[k].target != b[k].target ||
        a[k].result.score != b[k].result.score || a[k].result.query_end != b[k].result.query_end ||
        a[k].result.target_end != b[k].result.target_end || a[k].result.cigar != b[k].result.cigar)
      return false;
  return true;
}

}  // namespace

TEST_CASE("targets split across workers by residues: contiguous, covering, balanced",
          "[align][devices]") {
  const std::vector<std::uint64_t> lengths{100, 100, 100, 100, 0, 0, 300, 100};
  const auto offsets = offsets_of(lengths);
  for (const std::size_t workers : {1, 2, 3, 8, 20}) {
    const auto ranges = split_targets_by_residues(offsets, workers);
    REQUIRE(ranges.size() == workers);
    CHECK(ranges.front().begin == 0);
    CHECK(ranges.back().end == lengths.size());
    for (std::size_t w = 1; w < workers; ++w) CHECK(ranges[w].begin == ranges[w - 1].end);
  }
  // Two workers: 400 + 2 residues-ish on each side (weights length + 1).
  const auto two = split_targets_by_residues(offsets, 2);
  CHECK(two[0].end == 4);
  // More workers than targets: some ranges empty, every target in one.
  const auto many = split_targets_by_residues(offsets_of({5, 5}), 6);
  std::size_t covered = 0;
  for (const TargetRange& r : many) covered += r.size();
  CHECK(covered == 2);
  // No target at all.
  for (const TargetRange& r : split_targets_by_residues(offsets_of({}), 3)) CHECK(r.size() == 0);
}

TEST_CASE("pairs split across workers by cells; worker ranges planned in parts",
          "[align][devices]") {
  const std::vector<std::uint8_t> letters(1000, 1);
  const auto codes = [&](std::size_t n) { return Codes(letters.data(), n); };
  // Pair 2 holds most of the cells.
  const std::vector<Codes> q{codes(10), codes(10), codes(1000), codes(10), codes(0)};
  const std::vector<Codes> t{codes(10), codes(10), codes(1000), codes(10), codes(5)};
  const auto ranges = split_pairs_by_cells(q, t, 3);
  REQUIRE(ranges.size() == 3);
  CHECK(ranges.front().begin == 0);
  CHECK(ranges.back().end == 5);
  for (std::size_t w = 1; w < 3; ++w) CHECK(ranges[w].begin == ranges[w - 1].end);
  // The heavy pair sits alone-ish: the worker holding it holds no other.
  for (const TargetRange& r : ranges)
    if (r.begin <= 2 && 2 < r.end) CHECK(r.size() == 1);
  CHECK_THROWS_AS(split_pairs_by_cells(q, std::span(t).first(4), 2), seqfuse::Error);

  const auto offsets = offsets_of({10, 10, 10, 10, 10, 10});
  const auto parts = plan_range_parts(offsets, {2, 6}, 20);
  REQUIRE(parts.size() == 2);
  CHECK((parts[0].begin == 2 && parts[0].end == 4 && parts[1].begin == 4 && parts[1].end == 6));
  CHECK(plan_range_parts(offsets, {3, 3}, 20).empty());
  CHECK(plan_range_parts(offsets, {1, 6}, 1000).size() == 1);
}

TEST_CASE("workers' hits merged per query equal one device's, ties in target order",
          "[align][devices]") {
  const std::uint64_t seed = test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 random(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t queries = std::uniform_int_distribution<std::size_t>(0, 12)(random);
    const std::size_t targets = std::uniform_int_distribution<std::size_t>(0, 40)(random);
    const std::size_t workers = std::uniform_int_distribution<std::size_t>(1, 9)(random);
    const std::size_t top = std::vector<std::size_t>{0, 1, 3, 10, 100}[trial % 5];
    const bool all_vs_all = trial % 2 == 1;
    INFO("trial " << trial << ": " << queries << " queries, " << targets << " targets, " << workers
                  << " workers, top " << top << ", all_vs_all " << all_vs_all);
    const FakeScores scores(random, queries, all_vs_all ? queries : targets);
    std::vector<std::uint64_t> lengths(scores.targets);
    for (auto& l : lengths) l = std::uniform_int_distribution<std::uint64_t>(0, 50)(random);
    const auto ranges = split_targets_by_residues(offsets_of(lengths), workers);
    std::vector<std::vector<AlignHit>> per_worker;
    for (const TargetRange& r : ranges)
      per_worker.push_back(worker_hits(scores, r, all_vs_all, top, 0, queries));
    std::vector<AlignHit> merged;
    merge_worker_hits(per_worker, top, merged);
    REQUIRE(same_hits(merged, one_device_hits(scores, all_vs_all, top, 0, queries)));
  }
}

TEST_CASE("the worker merge: equal hits go to the earlier worker, bad order is refused",
          "[align][devices]") {
  const auto hit = [](std::uint32_t query, std::uint32_t target, int score, std::string tag) {
    AlignHit h{query, target, {}};
    h.result.score = score;
    h.result.cigar = std::move(tag);
    return h;
  };
  // Workers 0 and 1 both hold 9 for query 0: top 2 keeps 0's 9, then 1's
  // 9 (worker 0's targets come first); worker 2 is empty; query 1 only on 1.
  std::vector<std::vector<AlignHit>> per_worker{
      {hit(0, 1, 9, "a"), hit(0, 0, 4, "b")},
      {hit(0, 5, 9, "c"), hit(0, 6, 7, "d"), hit(1, 5, 1, "e")},
      {}};
  std::vector<AlignHit> out;
  merge_worker_hits(per_worker, 2, out);
  REQUIRE(out.size() == 3);
  CHECK(out[0].result.cigar == "a");
  CHECK(out[1].result.cigar == "c");
  CHECK(out[2].result.cigar == "e");
  std::vector<std::vector<AlignHit>> keep_all{{hit(0, 1, 9, "a"), hit(0, 0, 4, "b")},
                                              {hit(0, 5, 9, "c"), hit(0, 6, 7, "d")}};
  merge_worker_hits(keep_all, 0, out);
  REQUIRE(out.size() == 4);
  CHECK(out[2].result.cigar == "d");
  std::vector<std::vector<AlignHit>> none{{}, {}};
  merge_worker_hits(none, 5, out);
  CHECK(out.empty());
  // Within a query, a worse hit before a better one; a query going back.
  std::vector<std::vector<AlignHit>> unsorted{{hit(0, 1, 2, ""), hit(0, 2, 3, "")}};
  CHECK_THROWS_AS(merge_worker_hits(unsorted, 0, out), seqfuse::Error);
  std::vector<std::vector<AlignHit>> backwards{{hit(1, 1, 2, ""), hit(0, 2, 3, "")}};
  CHECK_THROWS_AS(merge_worker_hits(backwards, 0, out), seqfuse::Error);
}

TEST_CASE("chunks from worker threads reach the writer merged, in order, few at a time",
          "[align][devices]") {
  const std::uint64_t seed = test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 random(seed);
  for (const std::vector<int>& devices :
       {std::vector<int>{0, 0}, std::vector<int>{0, 1, 2}, std::vector<int>{3, 3, 3, 3, 3}}) {
    const std::size_t queries = 37, chunk = 4, top = 3;
    const std::size_t chunks = (queries + chunk - 1) / chunk;
    const FakeScores scores(random, queries, 23);
    const auto ranges = split_targets_by_residues(
        offsets_of(std::vector<std::uint64_t>(scores.targets, 10)), devices.size());
    std::atomic<std::size_t> furthest{0};  // the highest chunk published + 1
    std::vector<std::vector<int>> bound(devices.size());
    const ChunkWork work = [&](std::size_t w, int device, ChunkExchange& exchange) {
      bound[w].push_back(device);
      std::mt19937_64 jitter(w);
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = c * chunk, count = std::min(chunk, queries - first);
        std::vector<AlignHit> hits = worker_hits(scores, ranges[w], false, top, first, count);
        std::this_thread::sleep_for(std::chrono::microseconds(jitter() % 500));
        if (!exchange.publish(w, c, hits)) return;
        std::size_t seen = furthest.load();
        while (seen < c + 1 && !furthest.compare_exchange_weak(seen, c + 1)) {
        }
      }
    };
    std::vector<AlignHit> written;
    std::size_t next = 0;
    const ConsumeChunk consume = [&](std::size_t c, std::vector<AlignHit>& merged) {
      CHECK(c == next++);
      // Workers are never more than kChunksAhead past the chunk in hand.
      CHECK(furthest.load() <= c + 1 + kChunksAhead);
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      for (AlignHit& h : merged) written.push_back(std::move(h));
    };
    run_merged_chunks(devices, chunks, top, work, consume, kFakeBind);
    CHECK(next == chunks);
    CHECK(same_hits(written, one_device_hits(scores, false, top, 0, queries)));
    for (std::size_t w = 0; w < devices.size(); ++w)
      CHECK(bound[w] == std::vector<int>{devices[w]});
  }
  // No chunk at all: the workers still run and return.
  std::atomic<int> ran{0};
  run_merged_chunks(
      {0, 0}, 0, 1, [&](std::size_t, int, ChunkExchange&) { ++ran; },
      [](std::size_t, std::vector<AlignHit>&) { FAIL("no chunk to write"); }, kFakeBind);
  CHECK(ran == 2);
}

TEST_CASE("a failing worker or writer stops the chunk hand-over cleanly", "[align][devices]") {
  const std::size_t chunks = 50;
  const auto worker_failing_at = [&](std::size_t bad_worker, std::size_t bad_chunk) {
    return [=](std::size_t w, int, ChunkExchange& exchange) {
      for (std::size_t c = 0; c < chunks; ++c) {
        if (w == bad_worker && c == bad_chunk) throw seqfuse::Error("device lost");
        std::vector<AlignHit> hits{
            AlignHit{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(w), {}}};
        if (!exchange.publish(w, c, hits)) return;
      }
    };
  };
  std::size_t written = 0;
  const ConsumeChunk count_chunks = [&](std::size_t, std::vector<AlignHit>&) { ++written; };
  CHECK_THROWS_WITH(
      run_merged_chunks({0, 0, 0}, chunks, 0, worker_failing_at(1, 5), count_chunks, kFakeBind),
      "device lost");
  CHECK(written <= 5);  // nothing past the lost worker's chunk
  written = 0;
  CHECK_THROWS_WITH(
      run_merged_chunks({0, 1}, chunks, 0, worker_failing_at(0, 0), count_chunks, kFakeBind),
      "device lost");
  CHECK(written == 0);

  // A device that cannot be made current (gone since the run started).
  const seqfuse::BindDevice lost_device = [](int device) {
    if (device == 7) throw seqfuse::Error("device 7 is gone");
  };
  CHECK_THROWS_WITH(
      run_merged_chunks({0, 7, 0}, chunks, 0, worker_failing_at(9, 0), count_chunks, lost_device),
      "device 7 is gone");

  // The writer fails (a full disk): the workers stop, the writer's error comes back.
  const ConsumeChunk failing_writer = [&](std::size_t c, std::vector<AlignHit>&) {
    if (c == 3) throw std::runtime_error("disk full");
  };
  CHECK_THROWS_WITH(
      run_merged_chunks({0, 0}, chunks, 0, worker_failing_at(9, 0), failing_writer, kFakeBind),
      "disk full");

  // A worker returning early without an error is a bug, not a short output.
  const ChunkWork quitter = [&](std::size_t w, int, ChunkExchange& exchange) {
    for (std::size_t c = 0; c < (w == 1 ? 2 : chunks); ++c) {
      std::vector<AlignHit> hits;
      if (!exchange.publish(w, c, hits)) return;
    }
  };
  CHECK_THROWS_AS(run_merged_chunks({0, 0}, chunks, 0, quitter, count_chunks, kFakeBind),
                  seqfuse::Error);
  // Chunks published out of turn.
  const ChunkWork skipper = [&](std::size_t w, int, ChunkExchange& exchange) {
    std::vector<AlignHit> hits;
    (void)exchange.publish(w, 1, hits);
  };
  CHECK_THROWS_AS(run_merged_chunks({0}, 2, 0, skipper, count_chunks, kFakeBind), seqfuse::Error);
}
