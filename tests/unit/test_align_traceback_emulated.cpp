// The GPU traceback's device code run on the CPU: the batch planner
// (trace_plan.hpp), the per-pair fill and walks (trace_dp.hpp, the very
// functions the kernel calls) and the host decoding (traced_result), over
// interleaved groups and small budgets that force many batches. Each pair
// must equal reference_align field by field. CI runs it; the [gpu] test in
// tests/gpu checks the kernel itself.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "align/cigar.hpp"
#include "align/traced_result.hpp"
#include "align/reference.hpp"
#include "gpu/align/score_pairs.hpp"
#include "gpu/align/trace_plan.hpp"
#include "test_align_support.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::AlignResult;
using seqfuse::align::Codes;
using seqfuse::align::GapPenalties;
using seqfuse::align::ScoringScheme;
namespace trace = seqfuse::align::trace;
namespace test = seqfuse::align::test;

struct PairSet {
  std::vector<std::uint8_t> query_codes, target_codes;
  std::vector<trace::PlanPair> pairs;
  std::vector<std::vector<std::uint8_t>> queries, targets;  // for the reference

  void add(std::vector<std::uint8_t> q, std::vector<std::uint8_t> t) {
    pairs.push_back({query_codes.size(), target_codes.size(), static_cast<std::int32_t>(q.size()),
                     static_cast<std::int32_t>(t.size())});
    query_codes.insert(query_codes.end(), q.begin(), q.end());
    target_codes.insert(target_codes.end(), t.begin(), t.end());
    queries.push_back(std::move(q));
    targets.push_back(std::move(t));
  }
};

struct Emulated {
  std::vector<AlignResult> results;  // by pair; refused pairs left default
  std::vector<std::uint32_t> refused;
  std::size_t batches = 0;
};

// Every direction word and edge cell a job may write lies inside the batch
// and belongs to that job alone.
void require_disjoint_footprints(const trace::TraceBatch& batch) {
  std::vector<std::uint8_t> word_owner(batch.words, 0), edge_owner(batch.edges, 0);
  std::size_t clashes = 0;
  for (const trace::TraceJob& job : batch.jobs) {
    if (job.m == 0 || job.n == 0) continue;
    REQUIRE(static_cast<std::uint64_t>(job.n) <= job.columns);
    const trace::DirectionGrid grid{nullptr, job.stride, job.columns};
    for (std::uint32_t w = 0; w < trace::word_rows(static_cast<std::uint32_t>(job.m)); ++w) {
      for (int j = 0; j < job.n; ++j) {
        const std::uint64_t at = job.words + grid.at(w, static_cast<std::uint64_t>(j));
        if (at >= batch.words) FAIL("direction word " << at << " past " << batch.words);
        clashes += word_owner[at]++ != 0;
      }
    }
    if (job.m <= trace::kTraceRows) continue;
    for (int j = 0; j < job.n; ++j) {
      const std::uint64_t at = job.edges + static_cast<std::uint64_t>(j) * job.stride;
      if (at >= batch.edges) FAIL("edge cell " << at << " past " << batch.edges);
      clashes += edge_owner[at]++ != 0;
    }
  }
  CHECK(clashes == 0);
}

// What DeviceTracer::trace does, with host vectors for device buffers (filled
// with garbage first, as fresh device memory may be) and the jobs of a batch
// run in a shuffled order, as threads reserve their runs in any order.
Emulated emulate(const ScoringScheme& scheme, AlignMode mode, const PairSet& set,
                 std::uint64_t budget, std::mt19937_64& rng, std::uint64_t max_cells = UINT64_MAX) {
  const bool local = mode == AlignMode::local;
  const int alphabet = static_cast<int>(scheme.alphabet_size());
  const std::vector<int> matrix(scheme.table().begin(), scheme.table().end());
  const std::vector<int> table = seqfuse::gpu::pair_table(matrix, alphabet);
  const trace::TracePlan plan = trace::plan_traceback(set.pairs, budget, max_cells);
  Emulated out;
  out.results.resize(set.pairs.size());
  out.refused = plan.refused;
  out.batches = plan.batches.size();
  for (const trace::TraceBatch& batch : plan.batches) {
    REQUIRE(batch.bytes() <= budget);
    std::vector<std::uint32_t> words(batch.words + 1, 0xA5A5A5A5u);
    std::vector<trace::EdgeCell> edges(batch.edges + 1, trace::EdgeCell{-123456, 987654});
    std::vector<std::uint32_t> runs(batch.runs + 1, 0xFFFFFFFFu);
    std::vector<trace::TracedPair> traced(batch.jobs.size());
    const trace::TraceBuffers buffers{set.query_codes.data(), set.target_codes.data(),
                                      table.data(),           scheme.gaps(),
                                      words.data(),           edges.data()};
    require_disjoint_footprints(batch);
    // Threads run at once on the device: every fill first, then every
    // write, each in its own order, so a pair whose words another pair
    // overwrote would walk differently the second time.
    std::vector<std::size_t> order(batch.jobs.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    std::uint64_t fill = 0;
    for (std::size_t k : order) {
      const trace::TraceJob& job = batch.jobs[k];
      using seqfuse::align::pairs::PortableMaxPlus;
      trace::TracedPair p = local ? trace::trace_job_fill<true, PortableMaxPlus>(job, buffers)
                                  : trace::trace_job_fill<false, PortableMaxPlus>(job, buffers);
      p.run_offset = fill;
      fill += p.run_count;
      REQUIRE(fill <= batch.runs);
      traced[job.out] = p;
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t k : order) {
      const trace::TraceJob& job = batch.jobs[k];
      const trace::TracedPair& p = traced[job.out];
      trace::trace_job_write(local, job, buffers, p, runs.data() + p.run_offset);
    }
    CHECK(runs[batch.runs] == 0xFFFFFFFFu);  // nothing past the end
    runs.resize(fill);
    for (std::size_t k = 0; k < batch.jobs.size(); ++k)
      out.results[batch.pairs[k]] = seqfuse::align::traced_result(traced[k], runs);
  }
  return out;
}

void require_same(const AlignResult& got, const AlignResult& want, std::size_t k,
                  std::size_t& wrong) {
  const bool same = got.traced && got.score == want.score && got.query_end == want.query_end &&
                    got.target_end == want.target_end && got.query_begin == want.query_begin &&
                    got.target_begin == want.target_begin && got.cigar == want.cigar &&
                    got.matches == want.matches && got.alignment_length == want.alignment_length;
  if (!same && ++wrong <= 5) {
    UNSCOPED_INFO("pair " << k << ": emulated " << got.score << " [" << got.query_begin << ","
                          << got.target_begin << "]-[" << got.query_end << "," << got.target_end
                          << "] " << got.cigar << " m" << got.matches << " l"
                          << got.alignment_length << "; reference " << want.score << " ["
                          << want.query_begin << "," << want.target_begin << "]-[" << want.query_end
                          << "," << want.target_end << "] " << want.cigar << " m" << want.matches
                          << " l" << want.alignment_length);
  }
}

void check_against_reference(const ScoringScheme& scheme, AlignMode mode, const PairSet& set,
                             std::uint64_t budget, std::mt19937_64& rng) {
  const Emulated e = emulate(scheme, mode, set, budget, rng);
  CHECK(e.refused.empty());
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < set.pairs.size(); ++k) {
    const AlignResult want =
        seqfuse::align::reference_align(mode, scheme, set.queries[k], set.targets[k]);
    require_same(e.results[k], want, k, wrong);
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("emulated GPU traceback equals reference_align on random pairs", "[align][traceback]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        PairSet set;
        for (int k = 0; k < 60; ++k) {
          const int m = k < 9 ? k / 3 : rng.uniform(1, 90);  // 0, 1, 2 each with 0, 1, 2
          const int n = k < 9 ? k % 3 : rng.uniform(1, 90);
          const std::string q = rng.random(scheme_case.letters, static_cast<std::size_t>(m));
          const std::string t = k % 3 == 0 && k >= 9
                                    ? rng.mutate(q, scheme_case.letters, 0.2)
                                    : rng.random(scheme_case.letters, static_cast<std::size_t>(n));
          set.add(test::encode(scheme, q), test::encode(scheme, t));
        }
        // About one group per batch (interleaved lanes), then so little that
        // every group is split into single pairs over many batches.
        check_against_reference(scheme, mode, set, 200 * 1024, rng.rng());
        check_against_reference(scheme, mode, set, 16 * 1024, rng.rng());
      });
}

TEST_CASE("emulated GPU traceback: DNA with N and IUPAC, all-N, long and wide scores",
          "[align][traceback]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const ScoringScheme protein = ScoringScheme::builtin("blosum62", {11, 1});
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    PairSet set;
    for (int k = 0; k < 40; ++k) {
      const std::string q =
          rng.random("ACGTNRYSWKMBDHV", static_cast<std::size_t>(rng.uniform(1, 300)));
      set.add(test::encode(dna, q), test::encode(dna, rng.mutate(q, "ACGTN", 0.15)));
    }
    set.add(test::encode(dna, std::string(200, 'N')), test::encode(dna, std::string(150, 'N')));
    set.add(test::encode(dna, std::string(37, 'N')), test::encode(dna, "ACGTACGT"));
    // 2,000 bp near-identical: local scores near 4,000, global with long gaps.
    const std::string base = rng.random("ACGT", 2000);
    set.add(test::encode(dna, base), test::encode(dna, rng.mutate(base, "ACGT", 0.05)));
    set.add(test::encode(dna, base), test::encode(dna, base.substr(300, 900)));
    check_against_reference(dna, mode, set, std::uint64_t{8} << 20, rng.rng());

    // Identical 6,000-residue proteins: a score far beyond 16 bits.
    PairSet wide;
    const std::string p = rng.random("ARNDCQEGHILKMFPSTWYV", 6000);
    wide.add(test::encode(protein, p), test::encode(protein, p));
    wide.add(test::encode(protein, p),
             test::encode(protein, rng.mutate(p, "ARNDCQEGHILKMFPSTWYV", 0.1)));
    check_against_reference(protein, mode, wide, std::uint64_t{64} << 20, rng.rng());
  }
}

TEST_CASE("the traceback planner refuses pairs over the budget and keeps the rest",
          "[align][traceback]") {
  std::mt19937_64 rng(7);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  PairSet set;
  set.add(test::encode(dna, std::string(40, 'A')), test::encode(dna, std::string(40, 'A')));
  set.add(test::encode(dna, std::string(3000, 'C')), test::encode(dna, std::string(3000, 'C')));
  set.add(test::encode(dna, "ACGT"), test::encode(dna, ""));
  // 3,000 x 3,000 needs ~4.5 MB of direction words: over a 1 MB budget.
  const Emulated e = emulate(dna, AlignMode::global, set, 1 << 20, rng);
  REQUIRE(e.refused == std::vector<std::uint32_t>{1});
  for (std::size_t k : {0u, 2u}) {
    const AlignResult want =
        seqfuse::align::reference_align(AlignMode::global, dna, set.queries[k], set.targets[k]);
    CHECK(e.results[k].cigar == want.cigar);
    CHECK(e.results[k].score == want.score);
    CHECK(e.results[k].query_begin == want.query_begin);
  }
}

TEST_CASE("the traceback planner refuses pairs over the cell limit", "[align][traceback]") {
  std::mt19937_64 rng(11);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  PairSet set;
  for (int len : {50, 400, 20, 401, 0}) {
    set.add(test::encode(dna, std::string(static_cast<std::size_t>(len), 'G')),
            test::encode(dna, std::string(400, 'G')));
  }
  const Emulated e = emulate(dna, AlignMode::local, set, std::uint64_t{64} << 20, rng, 400 * 400);
  REQUIRE(e.refused == std::vector<std::uint32_t>{3});
  for (std::size_t k : {0u, 1u, 2u, 4u})
    CHECK(e.results[k].cigar ==
          seqfuse::align::reference_align(AlignMode::local, dna, set.queries[k], set.targets[k])
              .cigar);
}

TEST_CASE("the traceback planner cuts batches to whole waves", "[align][traceback]") {
  std::vector<trace::PlanPair> pairs;
  for (int k = 0; k < 1000; ++k) pairs.push_back({0, 0, 10 + k % 7, 20 + k % 5});
  // Budgets of `fit` times the largest pair's bytes.
  std::uint64_t pair_bytes = 0;
  for (std::uint32_t k = 0; k < pairs.size(); ++k) {
    const std::uint32_t one[1] = {k};
    pair_bytes = std::max(pair_bytes, trace::detail::group_size(pairs, one).bytes(1));
  }
  for (const std::size_t fit : {std::size_t{10}, std::size_t{100}, std::size_t{250}}) {
    for (const std::size_t wave : {std::size_t{32}, std::size_t{64}, std::size_t{96}}) {
      INFO("fit " << fit << ", wave " << wave);
      const trace::TracePlan plan =
          trace::plan_traceback(pairs, fit * pair_bytes, UINT64_MAX, wave);
      const std::size_t waves = std::max<std::size_t>(fit / wave, 1);
      std::size_t planned = 0;
      for (std::size_t b = 0; b < plan.batches.size(); ++b) {
        const std::size_t n = plan.batches[b].jobs.size();
        // Whole waves, except where the budget or the last pairs end a batch.
        if (b + 1 < plan.batches.size() && fit >= wave) CHECK(n == waves * wave);
        CHECK(n <= std::max(waves * wave, fit));
        planned += n;
      }
      CHECK(planned == pairs.size());
    }
  }
}

TEST_CASE("traced_result merges runs split at the run length limit", "[align][traceback]") {
  trace::TracedPair p;
  p.run_count = 3;
  p.run_offset = 1;
  const std::vector<std::uint32_t> runs{
      trace::pack_run(trace::kOpDelete, 9), trace::pack_run(trace::kOpMatch, 5),
      trace::pack_run(trace::kOpMatch, 2), trace::pack_run(trace::kOpInsert, 1)};
  CHECK(seqfuse::align::traced_result(p, runs).cigar == "7=1I");
  p.run_count = 4;
  CHECK_THROWS(seqfuse::align::traced_result(p, runs));
}
