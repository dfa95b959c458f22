// The 32-bit search kernel's device code run on the CPU, thread by thread:
// the interleaved target layout (search16::build_target_layout, the layout
// DeviceTargetSet uploads for every search kernel), the substitution table
// as load_search_table fills it (entries it leaves unset poisoned), and the
// per-thread DP (search32::score_target, the very function score_db.cu's
// kernel calls, with pair_dp.hpp's portable max-plus policy, whose results
// DPX equals by definition) over an edge buffer that starts poisoned and is
// reused from launch to launch, as score_wide's scratch buffer is. Every
// pair must equal reference_score: score and end cell. CI runs it; the
// [gpu] tests in tests/gpu check the kernel itself.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "align/reference.hpp"
#include "gpu/align/pair_dp.hpp"
#include "gpu/align/search16_dp.hpp"
#include "gpu/align/search32_dp.hpp"
#include "test_align_support.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::AlignResult;
using seqfuse::align::GapPenalties;
using seqfuse::align::ScoringScheme;
namespace gpu = seqfuse::gpu;
namespace pairs = seqfuse::align::pairs;
namespace s16 = seqfuse::gpu::search16;
namespace s32 = seqfuse::gpu::search32;
namespace test = seqfuse::align::test;
using Flat = test::FlatCodes;

// What the kernel never writes: edge cells of no slot, table entries past
// the alphabet. Either would show in a result if it were read.
constexpr gpu::EdgeHF kEdgePoison{1 << 24, 1 << 24};
constexpr int kTablePoison = 1 << 22;

// The shared-memory table as load_search_table (search_table.cuh) fills it.
std::vector<int> search_table(const ScoringScheme& scheme) {
  const int alphabet = static_cast<int>(scheme.alphabet_size());
  const auto matrix = scheme.table();
  std::vector<int> table(pairs::kTableSize, kTablePoison);
  for (int k = 0; k < alphabet * alphabet; ++k)
    table[(k / alphabet) * pairs::kTableStride + k % alphabet] =
        matrix[static_cast<std::size_t>(k)];
  for (int k = 0; k < pairs::kTableStride; ++k)
    table[pairs::kSentinelRow * pairs::kTableStride + k] = pairs::kPastEnd;
  return table;
}

// One launch: queries first .. first + count - 1 (blockIdx.y = 0 ..) against
// every slot, (query, slot) threads in a shuffled order. Afterwards no two
// threads own one edge cell, and every cell that no thread of this or an
// earlier launch owned (`owned`) still holds the poison.
template <bool kLocal>
void run_launch(const s16::TargetLayout& l, const std::vector<int>& table, GapPenalties gaps,
                const Flat& queries, std::uint32_t first, std::uint32_t count,
                std::vector<gpu::EdgeHF>& edges, std::vector<char>& owned, std::mt19937_64& rng,
                std::vector<gpu::PairScore>& by_slot) {
  const std::size_t slots = l.order.size();
  by_slot.assign(count * slots, gpu::PairScore{-7777, -7, -7});
  std::vector<std::uint64_t> items(count * slots);
  std::iota(items.begin(), items.end(), std::uint64_t{0});
  std::shuffle(items.begin(), items.end(), rng);
  for (const std::uint64_t item : items) {
    const auto y = static_cast<std::uint32_t>(item / slots);
    const std::size_t slot = item % slots;
    const std::size_t qi = first + y;
    const int m = static_cast<int>(queries[qi].size());
    const int n = static_cast<int>(l.slot_len[slot]);
    const std::uint64_t base = l.slot_base[slot];
    // An empty target's base may lie past the buffers (never read).
    by_slot[y * slots + slot] = s32::score_target<kLocal, pairs::PortableMaxPlus>(
        queries.codes.data() + queries.offsets[qi], m, n > 0 ? l.codes.data() + base : nullptr, n,
        n > 0 ? edges.data() + y * l.interleaved + base : nullptr, table.data(), gaps);
  }
  std::vector<std::uint8_t> owner(count * l.interleaved, 0);
  std::size_t clashes = 0, stray = 0;
  for (std::uint32_t y = 0; y < count; ++y) {
    if (queries[first + y].size() <= static_cast<std::size_t>(s32::kRows)) continue;
    for (std::size_t s = 0; s < slots; ++s)
      for (std::uint64_t j = 0; j < l.slot_len[s]; ++j)
        clashes += owner[y * l.interleaved + l.slot_base[s] + j * gpu::kSlotGroup]++ != 0;
  }
  for (std::size_t at = 0; at < owner.size(); ++at) owned[at] |= owner[at] != 0;
  for (std::size_t at = 0; at < owned.size(); ++at)
    stray += !owned[at] && (edges[at].h != kEdgePoison.h || edges[at].f != kEdgePoison.f);
  CHECK(clashes == 0);
  CHECK(stray == 0);
}

// What DeviceTargetSet::score_wide does, launch by launch: out[q * targets +
// t] by original target index.
std::vector<gpu::PairScore> emulate(const ScoringScheme& scheme, AlignMode mode,
                                    const Flat& queries, const Flat& targets,
                                    std::uint32_t per_launch, std::mt19937_64& rng) {
  const s16::TargetLayout l = s16::build_target_layout(targets.codes, targets.offsets);
  REQUIRE(l.order.size() == targets.size());
  const std::vector<int> table = search_table(scheme);
  const std::size_t slots = l.order.size();
  std::vector<gpu::PairScore> out(queries.size() * slots, gpu::PairScore{-9999, -9, -9});
  // One scratch buffer for every launch: fresh device memory holds anything,
  // reused memory the previous launch's edges.
  std::vector<gpu::EdgeHF> edges(per_launch * l.interleaved + 1, kEdgePoison);
  std::vector<char> owned(edges.size(), 0);
  std::vector<gpu::PairScore> by_slot;
  for (std::uint32_t first = 0; first < queries.size(); first += per_launch) {
    const auto count =
        static_cast<std::uint32_t>(std::min<std::size_t>(per_launch, queries.size() - first));
    if (mode == AlignMode::local)
      run_launch<true>(l, table, scheme.gaps(), queries, first, count, edges, owned, rng, by_slot);
    else
      run_launch<false>(l, table, scheme.gaps(), queries, first, count, edges, owned, rng, by_slot);
    for (std::uint32_t q = 0; q < count; ++q)
      for (std::size_t s = 0; s < slots; ++s)
        out[(first + q) * slots + l.order[s]] = by_slot[q * slots + s];
  }
  return out;
}

// Every pair equals reference_score, score and end cell.
void check_against_reference(const ScoringScheme& scheme, AlignMode mode, const Flat& queries,
                             const Flat& targets, std::mt19937_64& rng,
                             std::uint32_t per_launch = 3) {
  const std::vector<gpu::PairScore> got_all =
      emulate(scheme, mode, queries, targets, per_launch, rng);
  CHECK(test::count_unlike_reference(
            mode, scheme, queries, targets,
            [&](std::size_t q, std::size_t t) { return got_all[q * targets.size() + t]; }) == 0);
}

}  // namespace

TEST_CASE("emulated 32-bit search scores equal reference_score on random inputs",
          "[align][emulated]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  constexpr int kRows = s32::kRows;
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        const std::string& letters = scheme_case.letters;
        Flat queries, targets;
        // Empty, one letter, and lengths around the chunk edges.
        for (int len : {0, 1, 2, kRows - 1, kRows, kRows + 1, 2 * kRows, 2 * kRows + 1,
                        rng.uniform(1, 150), rng.uniform(1, 150)})
          queries.add(test::encode(scheme, rng.random(letters, static_cast<std::size_t>(len))));
        const std::string related = rng.random(letters, 90);
        queries.add(test::encode(scheme, related));
        // All the same letter, against a run of it (ties everywhere).
        queries.add(test::encode(scheme, std::string(45, letters[0])));
        // 43 targets: groups of kSlotGroup slots with a partial last group.
        for (const std::string& s : test::search_test_targets(rng, letters, related, 43))
          targets.add(test::encode(scheme, s));
        check_against_reference(scheme, mode, queries, targets, rng.rng());
      });
}

TEST_CASE("emulated 32-bit search: equal best scores in a later chunk at a smaller column",
          "[align][emulated]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  // The query holds motif a in its first chunk and motif b (as long, so as
  // good) in its third; the target holds b first and a last. The first best
  // cell in column-major order is b's end, found by the later chunk.
  for (int k = 0; k < 4; ++k) {
    const std::string a = rng.random("ACGT", 24), b = rng.random("ACGT", 24);
    Flat queries, targets;
    queries.add(test::encode(dna, a + rng.random("ACGT", 2 * s32::kRows - 24) + b));
    queries.add(test::encode(dna, b + a));
    targets.add(test::encode(dna, b + rng.random("ACGT", 40) + a));
    targets.add(test::encode(dna, a + rng.random("ACGT", 40) + b));
    targets.add(test::encode(dna, a + b));
    check_against_reference(dna, AlignMode::local, queries, targets, rng.rng(), 1);
  }
}

TEST_CASE("emulated 32-bit search: long pairs, scores past 16 bits, costly gaps, DNA",
          "[align][emulated]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    // Proteins of a few thousand residues, related and not, and W runs whose
    // scores (W-W: 11) pass 32,767: the pairs the 16-bit kernel hands here.
    const ScoringScheme blosum62 = ScoringScheme::builtin("blosum62", {11, 1});
    Flat queries, targets;
    const std::string base = rng.random(amino, 2500);
    queries.add(test::encode(blosum62, base));
    queries.add(test::encode(blosum62, std::string(3100, 'W')));
    queries.add(test::encode(blosum62, rng.random(amino, 70)));
    targets.add(test::encode(blosum62, rng.mutate(base, amino, 0.15)));
    targets.add(test::encode(blosum62, base.substr(400, 1700)));
    targets.add(test::encode(blosum62, rng.random(amino, 3100)));
    targets.add(test::encode(blosum62, std::string(3050, 'W')));
    targets.add(test::encode(blosum62, rng.mutate(std::string(3000, 'W'), amino, 0.02)));
    check_against_reference(blosum62, mode, queries, targets, rng.rng(), 2);

    // Costly gaps: global scores far below -32,768.
    const ScoringScheme costly = ScoringScheme::match_mismatch(2, -3, {1000, 10});
    Flat q2, t2;
    q2.add(test::encode(costly, rng.random("ACGT", 40)));
    q2.add(test::encode(costly, rng.random("ACGT", 70)));
    for (int len : {2700, 2900, 4000})
      t2.add(test::encode(costly, rng.random("ACGT", static_cast<std::size_t>(len))));
    check_against_reference(costly, mode, q2, t2, rng.rng(), 1);

    // DNA with N, near-identical pairs at match 5.
    const ScoringScheme dna = ScoringScheme::match_mismatch(5, -4, {10, 1});
    Flat q3, t3;
    const std::string d = rng.random("ACGT", 3000);
    q3.add(test::encode(dna, d));
    t3.add(test::encode(dna, d));
    t3.add(test::encode(dna, rng.mutate(d, "ACGTN", 0.03)));
    t3.add(test::encode(dna, std::string(2000, 'N')));
    check_against_reference(dna, mode, q3, t3, rng.rng());
  }
}
