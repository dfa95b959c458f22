// The pairs score kernel's device code run on the CPU: the host planner and
// packer (score_pairs.hpp: sort, groups of kGroup lanes, batches under a
// memory budget, 16-bit or 32-bit edges) and the per-pair DP (pair_dp.hpp,
// the very function the kernel calls, with the portable max-plus policy,
// whose results DPX equals by definition) over poisoned edge buffers. Each
// pair must equal reference_score: score and end cell. CI runs it; the
// [gpu][pairs] test in tests/gpu checks the kernel itself.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "align/reference.hpp"
#include "core/parallel.hpp"
#include "gpu/align/score_pairs.hpp"
#include "test_align_support.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::AlignResult;
using seqfuse::align::GapPenalties;
using seqfuse::align::ScoringScheme;
namespace pairs = seqfuse::align::pairs;
namespace gpu = seqfuse::gpu;
namespace test = seqfuse::align::test;

struct PairSet {
  std::vector<std::uint8_t> query_codes, target_codes;
  std::vector<gpu::PairInput> inputs;
  std::vector<std::vector<std::uint8_t>> queries, targets;  // for the reference

  void add(std::vector<std::uint8_t> q, std::vector<std::uint8_t> t) {
    inputs.push_back({query_codes.size(), target_codes.size(), static_cast<std::uint32_t>(q.size()),
                      static_cast<std::uint32_t>(t.size())});
    query_codes.insert(query_codes.end(), q.begin(), q.end());
    target_codes.insert(target_codes.end(), t.begin(), t.end());
    queries.push_back(std::move(q));
    targets.push_back(std::move(t));
  }
  void add(const ScoringScheme& scheme, const std::string& q, const std::string& t) {
    add(test::encode(scheme, q), test::encode(scheme, t));
  }
};

struct Emulated {
  std::vector<pairs::PairEnd> results;  // by input pair
  std::size_t batches = 0;
  std::size_t narrow_batches = 0;
};

// Every word and edge cell a slot reads or writes lies inside its batch and
// belongs to that slot alone, and every input pair has exactly one slot.
void require_layout(const gpu::PairBatch& batch, std::span<const gpu::PairInput> inputs, int bits,
                    std::vector<int>& seen) {
  const std::uint64_t per_word = 32 / static_cast<std::uint64_t>(bits);
  REQUIRE(batch.pairs.size() % pairs::kGroup == 0);
  REQUIRE(batch.groups.size() * pairs::kGroup == batch.pairs.size());
  std::vector<std::uint8_t> word_owner(batch.words, 0), edge_owner(batch.edges, 0);
  std::size_t clashes = 0, outside = 0;
  for (std::size_t slot = 0; slot < batch.pairs.size(); ++slot) {
    const std::uint32_t p = batch.pairs[slot];
    const pairs::PairLengths len = batch.lengths[slot];
    if (p == gpu::PairBatch::kPaddingSlot) {
      CHECK((len.m == 0 && len.n == 0));
      continue;
    }
    ++seen[p];
    CHECK((len.m == inputs[p].m && len.n == inputs[p].n));
    const pairs::PairGroup& g = batch.groups[slot / pairs::kGroup];
    const std::uint64_t lane = slot % pairs::kGroup;
    const auto claim = [&](std::vector<std::uint8_t>& owner, std::uint64_t at) {
      if (at >= owner.size()) {
        ++outside;
        return;
      }
      clashes += owner[at]++ != 0;
    };
    for (std::uint64_t w = 0; w < (len.m + per_word - 1) / per_word; ++w)
      claim(word_owner, g.query_word + w * pairs::kGroup + lane);
    for (std::uint64_t w = 0; w < (len.n + per_word - 1) / per_word; ++w)
      claim(word_owner, g.target_word + w * pairs::kGroup + lane);
    if (len.m > static_cast<std::uint32_t>(pairs::kRows))
      for (std::uint64_t j = 0; j < len.n; ++j)
        claim(edge_owner, g.edge + j * pairs::kGroup + lane);
  }
  CHECK(clashes == 0);
  CHECK(outside == 0);
}

template <bool kLocal, int kBits, class Edge>
void run_slots(const gpu::PairBatch& batch, const std::vector<std::uint32_t>& words,
               const std::vector<int>& table, GapPenalties gaps, std::mt19937_64& rng,
               std::vector<pairs::PairEnd>& out) {
  // Fresh device memory holds anything: poison the edges. Slots run in a
  // shuffled order, as threads do.
  std::vector<Edge> edges(batch.edges + 1);
  std::fill(reinterpret_cast<unsigned char*>(edges.data()),
            reinterpret_cast<unsigned char*>(edges.data() + edges.size()), 0xA5);
  const pairs::PairBatchView view{words.data(), batch.groups.data(), batch.lengths.data(),
                                  static_cast<std::uint32_t>(batch.pairs.size())};
  std::vector<std::uint32_t> order(batch.pairs.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), rng);
  out.assign(batch.pairs.size(), pairs::PairEnd{-7777, -7, -7});
  for (std::uint32_t slot : order)
    out[slot] = pairs::pair_score<kLocal, kBits, Edge, pairs::PortableMaxPlus>(
        view, edges.data(), slot, table.data(), gaps);
}

// What DevicePairScorer::score does, with host vectors for device buffers.
Emulated emulate(const ScoringScheme& scheme, AlignMode mode, const PairSet& set,
                 std::uint64_t budget, bool force_wide, std::mt19937_64& rng) {
  const bool local = mode == AlignMode::local;
  const int alphabet = static_cast<int>(scheme.alphabet_size());
  const std::vector<int> matrix(scheme.table().begin(), scheme.table().end());
  const std::vector<int> table = gpu::pair_table(matrix, alphabet);
  const int bits = pairs::code_bits(alphabet);
  const auto plan = gpu::plan_pair_batches(set.inputs, scheme.gaps(), scheme.max_score(), budget,
                                           bits, force_wide);
  Emulated e;
  e.results.assign(set.inputs.size(), pairs::PairEnd{-9999, -9, -9});
  e.batches = plan.size();
  std::vector<int> seen(set.inputs.size(), 0);
  std::vector<pairs::PairEnd> by_slot;
  for (const gpu::PairBatch& batch : plan) {
    if (batch.groups.size() > 1) CHECK(batch.bytes() <= budget);  // one big group may exceed
    e.narrow_batches += batch.narrow;
    require_layout(batch, set.inputs, bits, seen);
    std::vector<std::uint32_t> words(batch.words, 0xDEADBEEFu);
    gpu::pack_pair_words(batch, set.inputs, set.query_codes.data(), set.target_codes.data(), bits,
                         words);
    const GapPenalties gaps = scheme.gaps();
    if (bits == 4 && local && batch.narrow)
      run_slots<true, 4, pairs::EdgeNarrow>(batch, words, table, gaps, rng, by_slot);
    else if (bits == 4 && local)
      run_slots<true, 4, pairs::EdgeWide>(batch, words, table, gaps, rng, by_slot);
    else if (bits == 4 && batch.narrow)
      run_slots<false, 4, pairs::EdgeNarrow>(batch, words, table, gaps, rng, by_slot);
    else if (bits == 4)
      run_slots<false, 4, pairs::EdgeWide>(batch, words, table, gaps, rng, by_slot);
    else if (local && batch.narrow)
      run_slots<true, 8, pairs::EdgeNarrow>(batch, words, table, gaps, rng, by_slot);
    else if (local)
      run_slots<true, 8, pairs::EdgeWide>(batch, words, table, gaps, rng, by_slot);
    else if (batch.narrow)
      run_slots<false, 8, pairs::EdgeNarrow>(batch, words, table, gaps, rng, by_slot);
    else
      run_slots<false, 8, pairs::EdgeWide>(batch, words, table, gaps, rng, by_slot);
    for (std::size_t slot = 0; slot < batch.pairs.size(); ++slot)
      if (batch.pairs[slot] != gpu::PairBatch::kPaddingSlot)
        e.results[batch.pairs[slot]] = by_slot[slot];
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(seen.size()));
  return e;
}

void check_against_reference(const ScoringScheme& scheme, AlignMode mode, const PairSet& set,
                             std::uint64_t budget, bool force_wide, std::mt19937_64& rng) {
  const Emulated e = emulate(scheme, mode, set, budget, force_wide, rng);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < set.inputs.size(); ++k) {
    const AlignResult want =
        seqfuse::align::reference_score(mode, scheme, set.queries[k], set.targets[k]);
    const pairs::PairEnd& got = e.results[k];
    if (got.score == want.score && got.query_end == want.query_end &&
        got.target_end == want.target_end)
      continue;
    if (++wrong <= 5)
      UNSCOPED_INFO("pair " << k << " (" << set.queries[k].size() << " x " << set.targets[k].size()
                            << "): emulated " << got.score << " @" << got.query_end << ","
                            << got.target_end << " reference " << want.score << " @"
                            << want.query_end << "," << want.target_end);
  }
  CHECK(wrong == 0);
}

constexpr std::uint64_t kLargeBudget = std::uint64_t{1} << 30;

}  // namespace

TEST_CASE("emulated GPU pair scores equal reference_score on random pairs", "[align][pairs]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        PairSet set;
        for (int k = 0; k < 150; ++k) {
          // 0, 1, 2 against 0, 1, 2; then one chunk, several chunks, and
          // lengths just around the chunk height.
          int m = k < 9 ? k / 3 : rng.uniform(1, k < 80 ? 40 : 160);
          const int n = k < 9 ? k % 3 : rng.uniform(1, 160);
          if (k >= 9 && k < 20) m = pairs::kRows + (k % 3) - 1;
          const std::string q = rng.random(scheme_case.letters, static_cast<std::size_t>(m));
          const std::string t = k % 3 == 0 && k >= 9
                                    ? rng.mutate(q, scheme_case.letters, 0.2)
                                    : rng.random(scheme_case.letters, static_cast<std::size_t>(n));
          set.add(scheme, q, t);
        }
        check_against_reference(scheme, mode, set, kLargeBudget, false, rng.rng());
        // Small budgets: many batches, one group each; 32-bit edges forced.
        check_against_reference(scheme, mode, set, 24 * 1024, false, rng.rng());
        check_against_reference(scheme, mode, set, 24 * 1024, true, rng.rng());
      });
}

TEST_CASE("emulated GPU pair scores: DNA with N and IUPAC, all-N, long pairs", "[align][pairs]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    PairSet set;
    for (int k = 0; k < 80; ++k) {
      const std::string q =
          rng.random("ACGTNRYSWKMBDHV", static_cast<std::size_t>(rng.uniform(1, 300)));
      set.add(dna, q, rng.mutate(q, "ACGTN", 0.15));
    }
    set.add(dna, std::string(200, 'N'), std::string(150, 'N'));
    set.add(dna, std::string(37, 'N'), "ACGTACGT");
    set.add(dna, "NNNN", std::string(90, 'N'));
    set.add(dna, "ACGT", "");
    set.add(dna, "", std::string(70, 'A'));
    // 2,000 bp near-identical (local scores near 4,000) and contained.
    const std::string base = rng.random("ACGT", 2000);
    set.add(dna, base, rng.mutate(base, "ACGT", 0.05));
    set.add(dna, base, base.substr(300, 900));
    set.add(dna, base.substr(100, 1500), base);
    // Lowercase is the same letter.
    std::string lower = base.substr(0, 150);
    for (char& c : lower) c = static_cast<char>(c - 'A' + 'a');
    set.add(dna, lower, base.substr(0, 150));
    check_against_reference(dna, mode, set, kLargeBudget, false, rng.rng());
    check_against_reference(dna, mode, set, 64 * 1024, false, rng.rng());
  }
}

TEST_CASE("emulated GPU pair scores: values at and past the 16-bit edge limits", "[align][pairs]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    // match 100: 320 identical letters score exactly 32,000 (the narrow
    // limit); 330 go past it and must take 32-bit edges.
    const ScoringScheme big = ScoringScheme::match_mismatch(100, -100, {5, 2});
    PairSet high;
    const std::string a = rng.random("ACGT", 330);
    high.add(big, a.substr(0, 320), a.substr(0, 320));
    high.add(big, a, a);
    high.add(big, a, rng.mutate(a, "ACGT", 0.02));
    const Emulated e = emulate(big, mode, high, kLargeBudget, false, rng.rng());
    CHECK(e.narrow_batches == 1);  // the 320 pair
    CHECK(e.batches == 2);
    check_against_reference(big, mode, high, kLargeBudget, false, rng.rng());

    // Costly gaps: global scores and F values near -30,000 in narrow edges.
    const ScoringScheme costly = ScoringScheme::match_mismatch(2, -3, {1000, 10});
    PairSet low;
    low.add(costly, rng.random("ACGT", 40), rng.random("ACGT", 2700));
    low.add(costly, rng.random("ACGT", 70), rng.random("ACGT", 2600));
    low.add(costly, rng.random("ACGT", 2600), rng.random("ACGT", 45));
    check_against_reference(costly, mode, low, kLargeBudget, false, rng.rng());

    // Identical 6,000-residue proteins and 7,000 bp at match 5: scores far
    // beyond 16 bits.
    const ScoringScheme protein = ScoringScheme::builtin("blosum62", {11, 1});
    PairSet wide;
    const std::string p = rng.random("ARNDCQEGHILKMFPSTWYV", 6000);
    wide.add(protein, p, p);
    wide.add(protein, p, rng.mutate(p, "ARNDCQEGHILKMFPSTWYV", 0.1));
    check_against_reference(protein, mode, wide, kLargeBudget, false, rng.rng());
    const ScoringScheme dna5 = ScoringScheme::match_mismatch(5, -4, {10, 1});
    PairSet dna_wide;
    const std::string d = rng.random("ACGT", 7000);
    dna_wide.add(dna5, d, d);
    dna_wide.add(dna5, d, rng.mutate(d, "ACGTN", 0.03));
    check_against_reference(dna5, mode, dna_wide, kLargeBudget, false, rng.rng());
  }
}

TEST_CASE("the pairs planner groups by row chunks and target length under the budget",
          "[align][pairs]") {
  std::mt19937_64 rng(5);
  std::vector<gpu::PairInput> inputs;
  for (std::uint32_t k = 0; k < 1000; ++k)
    inputs.push_back(
        {0, 0, static_cast<std::uint32_t>(rng() % 400), static_cast<std::uint32_t>(rng() % 400)});
  const std::uint64_t budget = 256 * 1024;
  const auto plan = gpu::plan_pair_batches(inputs, {5, 2}, 2, budget, 4);
  REQUIRE(plan.size() > 1);
  std::size_t real = 0;
  for (const gpu::PairBatch& batch : plan) {
    CHECK(batch.bytes() <= budget);
    for (std::size_t g = 0; g < batch.groups.size(); ++g) {
      // A group's pairs share one row-chunk count (up to the boundary
      // between two counts), and targets never grow within a chunk count.
      std::uint32_t lo = UINT32_MAX, hi = 0;
      for (std::size_t l = 0; l < pairs::kGroup; ++l) {
        const std::uint32_t p = batch.pairs[g * pairs::kGroup + l];
        if (p == gpu::PairBatch::kPaddingSlot) continue;
        ++real;
        const std::uint32_t chunks = (inputs[p].m + pairs::kRows - 1) / pairs::kRows;
        lo = std::min(lo, chunks);
        hi = std::max(hi, chunks);
      }
      CHECK(hi - lo <= 1);
    }
  }
  CHECK(real == inputs.size());
  // Only the last batch of each edge width may hold padding.
  std::size_t padded = 0;
  for (const gpu::PairBatch& batch : plan)
    padded += std::count(batch.pairs.begin(), batch.pairs.end(), gpu::PairBatch::kPaddingSlot) > 0;
  CHECK(padded <= 2);
}

TEST_CASE("the pairs planner gives one plan whatever its thread count", "[align][pairs]") {
  // Enough pairs for several sorted slices (2^16 keys each) to be merged.
  std::mt19937_64 rng(6);
  std::vector<gpu::PairInput> inputs;
  for (std::uint32_t k = 0; k < 300'000; ++k)
    inputs.push_back(
        {0, 0, static_cast<std::uint32_t>(rng() % 300), static_cast<std::uint32_t>(rng() % 300)});
  // Costly gaps make the long pairs 32-bit-edged: both widths are planned.
  const auto one = gpu::plan_pair_batches(inputs, {200, 100}, 2, 64 << 20, 4, false, {});
  for (unsigned threads : {2U, 7U, 16U}) {
    const auto many = gpu::plan_pair_batches(inputs, {200, 100}, 2, 64 << 20, 4, false,
                                                  seqfuse::host_loop(threads));
    REQUIRE(many.size() == one.size());
    for (std::size_t b = 0; b < one.size(); ++b) {
      CHECK(many[b].narrow == one[b].narrow);
      CHECK(many[b].pairs == one[b].pairs);
      CHECK(many[b].words == one[b].words);
    }
  }
  bool narrow = false, wide = false;
  for (const gpu::PairBatch& batch : one) (batch.narrow ? narrow : wide) = true;
  CHECK((narrow && wide));
}
