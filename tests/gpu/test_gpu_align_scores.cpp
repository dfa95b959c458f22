// The GPU score engine against the scalar reference, exactly: every built-in
// matrix, several gap pairs, both modes, lengths 0, 1, 2 and long, and the
// real protein fixture. Fresh random inputs each run (seed printed).
// score() runs the 16-bit packed-lane kernel first and reruns flagged pairs
// at 32 bits; the [search16] cases aim at that split (saturating pairs,
// lanes of different lengths, both paths side by side) and print how many
// pairs were rerun.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../unit/test_align_support.hpp"
#include "align/gpu_params.hpp"
#include "align/reference.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"
#include "gpu/align/score_db.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::ScoringScheme;
namespace gpu = seqfuse::gpu;
namespace test = seqfuse::align::test;

using Flat = test::FlatCodes;

// Pairs of `got` (scores of every query against every target) that differ
// from the reference: every `step`-th target of each query, from q % step.
std::size_t wrong_pairs(const ScoringScheme& scheme, AlignMode mode, const Flat& queries,
                        const Flat& targets, const std::vector<gpu::PairScore>& got,
                        std::size_t step = 1) {
  std::size_t wrong = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (std::size_t t = q % step; t < targets.size(); t += step) {
      const auto want = seqfuse::align::reference_score(mode, scheme, queries[q], targets[t]);
      const gpu::PairScore& g = got[q * targets.size() + t];
      if (g.score != want.score || g.query_end != want.query_end ||
          g.target_end != want.target_end) {
        if (++wrong <= 5) {
          UNSCOPED_INFO("query " << q << " (len " << queries[q].size() << ") target " << t
                                 << " (len " << targets[t].size() << "): gpu " << g.score << " @"
                                 << g.query_end << "," << g.target_end << " reference "
                                 << want.score << " @" << want.query_end << "," << want.target_end);
        }
      }
    }
  }
  return wrong;
}

// Scores all queries against all targets on the GPU (output poisoned first)
// and requires every pair to equal the reference. narrow: 16-bit lanes first
// (the default) or the 32-bit kernel only.
gpu::ScoreStats require_equal_to_reference(const ScoringScheme& scheme, AlignMode mode,
                                           const Flat& queries, const Flat& targets,
                                           bool narrow = true, std::uint32_t long_factor = 4) {
  gpu::DeviceTargetSet set(targets.codes, targets.offsets);
  std::vector<gpu::PairScore> got(queries.size() * targets.size(), gpu::PairScore{-7777, -7, -7});
  gpu::ScoreParams params = seqfuse::align::gpu_score_params(scheme, mode);
  params.narrow_lanes = narrow;
  params.long_factor = long_factor;
  REQUIRE(set.score(params, queries.codes, queries.offsets, got) == gpu::Status::kSuccess);
  const gpu::ScoreStats stats = set.last_stats();
  CHECK(stats.pairs == queries.size() * targets.size());
  if (!narrow) CHECK(stats.narrow_pairs == 0);
  CHECK(wrong_pairs(scheme, mode, queries, targets, got) == 0);
  return stats;
}

void print_stats(const char* what, const gpu::ScoreStats& s) {
  std::printf(
      "[search16] %s: %llu pairs, %llu in 16-bit lanes, %llu flagged, %llu rerun at 32 "
      "bits (%u queries)\n",
      what, static_cast<unsigned long long>(s.pairs),
      static_cast<unsigned long long>(s.narrow_pairs),
      static_cast<unsigned long long>(s.flagged_pairs),
      static_cast<unsigned long long>(s.rerun_pairs), s.rerun_queries);
}

}  // namespace

TEST_CASE("GPU scores equal the reference on random inputs", "[gpu][align]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        Flat queries, targets;
        for (int len : {0, 1, 2, 17, rng.uniform(1, 200), rng.uniform(1, 200)})
          queries.add(test::encode(scheme, rng.random(scheme_case.letters, len)));
        const std::string related = rng.random(scheme_case.letters, 120);
        queries.add(test::encode(scheme, related));
        for (int k = 0; k < 70; ++k) {
          const int len = k < 3 ? k : rng.uniform(1, 250);
          const std::string s = k % 4 == 3 ? rng.mutate(related, scheme_case.letters, 0.2)
                                           : rng.random(scheme_case.letters, len);
          targets.add(test::encode(scheme, s));
        }
        require_equal_to_reference(scheme, mode, queries, targets);
      });
}

TEST_CASE("GPU scores: more queries than one launch's grid takes, against a few targets",
          "[gpu][align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  // 140,001 queries (an odd count): above the 65,535 queries (or query
  // pairs) a grid's second dimension takes, so the launches are capped.
  Flat queries, targets;
  for (int k = 0; k < 140001; ++k)
    queries.add(
        test::encode(scheme, rng.random(amino, static_cast<std::size_t>(rng.uniform(0, 12)))));
  for (int len : {9, 30, 4})
    targets.add(test::encode(scheme, rng.random(amino, static_cast<std::size_t>(len))));
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    require_equal_to_reference(scheme, mode, queries, targets);
}

TEST_CASE("GPU scores equal the reference on long sequences", "[gpu][align]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string letters(scheme.letters());
  const std::string base = rng.random("ARNDCQEGHILKMFPSTWYV", 6000);
  Flat queries, targets;
  queries.add(test::encode(scheme, base));
  queries.add(test::encode(scheme, rng.mutate(base, "ARNDCQEGHILKMFPSTWYV", 0.1)));
  targets.add(test::encode(scheme, base));  // identical: a score far beyond 16 bits
  targets.add(test::encode(scheme, rng.mutate(base, "ARNDCQEGHILKMFPSTWYV", 0.3)));
  targets.add(test::encode(scheme, rng.random(letters, 9000)));
  targets.add(test::encode(scheme, rng.random(letters, 3)));
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    print_stats("long sequences", require_equal_to_reference(scheme, mode, queries, targets));
}

TEST_CASE("GPU scores equal the reference on real proteins", "[gpu][align]") {
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  Flat queries, targets;
  for (const auto& r : test::read_fasta(test::kAlignData / "proteins_queries.fa"))
    queries.add(test::encode(scheme, r.sequence));
  for (const auto& r : test::read_fasta(test::kAlignData / "proteins_targets.fa"))
    targets.add(test::encode(scheme, r.sequence));
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    require_equal_to_reference(scheme, mode, queries, targets);
}

TEST_CASE("the GPU score engine refuses what it cannot do", "[gpu][align]") {
  const std::vector<std::uint8_t> codes{0, 1, 2};
  const std::vector<std::uint64_t> offsets{0, 3};
  gpu::DeviceTargetSet set(codes, offsets);
  gpu::ScoreParams p;
  p.alphabet_size = 40;
  p.matrix.assign(40 * 40, 1);
  CHECK(gpu::DeviceTargetSet::can_implement(p) == gpu::Status::kInvalidSize);
  p.alphabet_size = 2;
  p.matrix.assign(4, 1);
  std::vector<gpu::PairScore> out;
  // Letter code 2 is outside a 2-letter alphabet.
  CHECK(set.score(p, codes, offsets, out) == gpu::Status::kInvalidArgument);
  // A 3-letter alphabet takes it; the output is sized to queries x targets.
  p.alphabet_size = 3;
  p.matrix.assign(9, 1);
  std::vector<gpu::PairScore> two(2);
  REQUIRE(set.score(p, codes, offsets, two) == gpu::Status::kSuccess);
  CHECK(two.size() == 1);
  CHECK(two[0].score == 3);
}

TEST_CASE("GPU 16-bit search: saturating pairs are rerun at 32 bits, their lane partners exact",
          "[gpu][align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  // W-W scores 11: 3,000 W reach 33,000 (past 16 bits); the saturation
  // limit is 32,767 - 11 = 32,756, so 2,978 W are flagged, 2,977 W exact.
  Flat queries, targets;
  queries.add(test::encode(scheme, std::string(3000, 'W')));
  queries.add(test::encode(scheme, rng.random(amino, 400)));
  const std::string w_mix = std::string(1500, 'W') + rng.random(amino, 40) + std::string(1500, 'W');
  queries.add(test::encode(scheme, w_mix));
  queries.add(test::encode(scheme, ""));
  for (int len : {3000, 2999, 2978, 2977, 2960, 2900, 1200, 1199, 40, 3, 1, 0})
    targets.add(test::encode(scheme, std::string(static_cast<std::size_t>(len), 'W')));
  targets.add(test::encode(scheme, rng.mutate(std::string(3000, 'W'), amino, 0.02)));
  targets.add(test::encode(scheme, rng.random(amino, 2990)));
  targets.add(test::encode(scheme, w_mix));  // 15 targets: the last lane has no partner
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    const gpu::ScoreStats stats = require_equal_to_reference(scheme, mode, queries, targets);
    CHECK(stats.flagged_pairs > 0);
    CHECK(stats.rerun_queries > 0);
    print_stats(mode == AlignMode::local ? "saturating sw" : "saturating nw", stats);
  }
}

TEST_CASE("GPU 16-bit search: mixed-length lanes, every scoring, both paths agree",
          "[gpu][align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  gpu::ScoreStats total;
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        const std::string& letters = scheme_case.letters;
        Flat queries, targets;
        for (int len : {0, 1, 2, 31, 32, 33, rng.uniform(1, 300), rng.uniform(1, 300)})
          queries.add(test::encode(scheme, rng.random(letters, static_cast<std::size_t>(len))));
        queries.add(test::encode(scheme, std::string(70, letters[0])));  // all one letter
        const std::string related = rng.random(letters, 200);
        queries.add(test::encode(scheme, related));
        // 301 targets (odd: a lone last lane) whose lengths jump, so the two
        // lanes of a thread often differ, some by a lot.
        for (int k = 0; k < 301; ++k) {
          std::string s;
          if (k % 7 == 0)
            s = rng.random(letters, static_cast<std::size_t>(rng.uniform(0, 3)));
          else if (k % 5 == 0)
            s = rng.mutate(related, letters, 0.15);
          else if (k % 11 == 0)
            s = std::string(static_cast<std::size_t>(rng.uniform(1, 90)), letters[0]);
          else
            s = rng.random(letters, static_cast<std::size_t>(rng.uniform(1, 500)));
          targets.add(test::encode(scheme, s));
        }
        const gpu::ScoreStats narrow = require_equal_to_reference(scheme, mode, queries, targets);
        CHECK(narrow.narrow_pairs == narrow.pairs);
        // The 32-bit path on the same inputs (one gap pair: the reference
        // is the slow part of this test).
        if (scheme.gap_open() == 11)
          require_equal_to_reference(scheme, mode, queries, targets, false);
        total.pairs += narrow.pairs;
        total.narrow_pairs += narrow.narrow_pairs;
        total.flagged_pairs += narrow.flagged_pairs;
        total.rerun_pairs += narrow.rerun_pairs;
        total.rerun_queries += narrow.rerun_queries;
      });
  print_stats("mixed lengths, every scoring", total);
}

TEST_CASE("GPU 16-bit search: the longest targets run in the wavefront kernel beside it",
          "[gpu][align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  // 700 short targets and a tail of 12 long ones (over 4x the mean length):
  // the long slots (7 = 1 % of them, rounded up to 64) go to the wavefront
  // kernel (one warp per pair), the rest to the 16-bit one; queries of very
  // different lengths, 1,100 residues taking three of its 512-row passes.
  const std::string related = rng.random(amino, 400);
  Flat queries, targets;
  for (int len : {0, 1, 35, 400, 1100})
    queries.add(test::encode(scheme, rng.random(amino, static_cast<std::size_t>(len))));
  queries.add(test::encode(scheme, related));
  for (int k = 0; k < 712; ++k) {
    std::string s;
    if (k % 60 == 7)
      s = k % 120 == 7 ? rng.mutate(related + rng.random(amino, 500), amino, 0.1)
                       : rng.random(amino, static_cast<std::size_t>(rng.uniform(600, 1500)));
    else
      s = k % 9 == 0 ? rng.mutate(related.substr(100, 60), amino, 0.2)
                     : rng.random(amino, static_cast<std::size_t>(rng.uniform(0, 90)));
    targets.add(test::encode(scheme, s));
  }
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    const gpu::ScoreStats stats = require_equal_to_reference(scheme, mode, queries, targets);
    CHECK(stats.narrow_pairs > 0);
    CHECK(stats.narrow_pairs == stats.pairs - 64 * queries.size());
    // long_factor 0: every target in the 16-bit kernel, the long ones too.
    const gpu::ScoreStats all16 =
        require_equal_to_reference(scheme, mode, queries, targets, true, /*long_factor=*/0);
    CHECK(all16.narrow_pairs == all16.pairs);
  }
}

TEST_CASE("GPU 16-bit search: a 20 M-residue set up and its scores down through pinned blocks",
          "[gpu][align][search16]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  // Past 16 MiB both ways: the letters (25 M) go up through pinned staging
  // blocks filled on 4 host threads, and 16 queries' scores (100,000 x 16 x
  // 12 bytes) come down the same way. A sample of pairs against the
  // reference, every query.
  const std::string related = rng.random(amino, 200);
  Flat queries, targets;
  queries.add(test::encode(scheme, rng.random(amino, 600)));
  for (int q = 1; q < 15; ++q)
    queries.add(
        test::encode(scheme, rng.random(amino, static_cast<std::size_t>(rng.uniform(1, 300)))));
  queries.add(test::encode(scheme, related));
  for (int k = 0; k < 100'000; ++k)
    targets.add(test::encode(
        scheme, k % 50 == 3 ? rng.mutate(related, amino, 0.15)
                            : rng.random(amino, static_cast<std::size_t>(rng.uniform(150, 350)))));
  REQUIRE(targets.codes.size() > (std::size_t{16} << 20));
  gpu::DeviceTargetSet set(targets.codes, targets.offsets, 4);
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    std::vector<gpu::PairScore> got(queries.size() * targets.size(), gpu::PairScore{-7777, -7, -7});
    const gpu::ScoreParams params = seqfuse::align::gpu_score_params(scheme, mode);
    // The kernels' busy time lies inside the host's time around the call.
    gpu::DeviceTimeline timeline;
    set.time_kernels_on(&timeline);
    const seqfuse::Stopwatch wall;
    REQUIRE(set.score(params, queries.codes, queries.offsets, got, seqfuse::host_loop(4)) ==
            gpu::Status::kSuccess);
    const double wall_seconds = wall.seconds();
    const double busy = timeline.busy_seconds();
    set.time_kernels_on(nullptr);
    CHECK(busy > 0);
    CHECK(busy <= wall_seconds);
    // About 4,800 pairs: every 331st target of each query.
    CHECK(wrong_pairs(scheme, mode, queries, targets, got, 331) == 0);
    std::size_t poisoned = 0;
    for (const gpu::PairScore& g : got) poisoned += g.score == -7777;
    CHECK(poisoned == 0);
  }
}
