// The scalar reference: hand-checked cases, Parasail's end-cell conventions,
// empty sequences, an exhaustive brute force over all alignments of short
// sequences, and tracebacks that re-score to the reported score.
#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <string>

#include "align/cigar.hpp"
#include "align/reference.hpp"
#include "align/scoring.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
using seqfuse::align::test::encode;
using seqfuse::align::test::RandomSequences;
using seqfuse::align::test::test_seed;

namespace {

// Score of one alignment given as columns 'M' (residue against residue), 'I'
// (query residue against gap), 'D' (target residue against gap).
int score_columns(const ScoringScheme& scheme, Codes q, Codes t, const std::string& columns) {
  int score = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  for (std::size_t k = 0; k < columns.size();) {
    const char op = columns[k];
    std::size_t run = 0;
    while (k < columns.size() && columns[k] == op) {
      ++run;
      ++k;
    }
    if (op == 'M') {
      for (std::size_t r = 0; r < run; ++r, ++i, ++j) score += scheme.score(q[i], t[j]);
    } else {
      score -= gap_cost(static_cast<int>(run), scheme.gaps());
      (op == 'I' ? i : j) += run;
    }
  }
  return score;
}

// The best score over every global alignment of q and t, by enumeration.
int brute_force_global(const ScoringScheme& scheme, Codes q, Codes t) {
  int best = INT_MIN;
  std::string columns;
  auto walk = [&](auto&& self, std::size_t i, std::size_t j) -> void {
    if (i == q.size() && j == t.size()) {
      best = std::max(best, score_columns(scheme, q, t, columns));
      return;
    }
    for (char op : {'M', 'I', 'D'}) {
      const bool ok = op == 'M'   ? (i < q.size() && j < t.size())
                      : op == 'I' ? i < q.size()
                                  : j < t.size();
      if (!ok) continue;
      columns.push_back(op);
      self(self, i + (op != 'D'), j + (op != 'I'));
      columns.pop_back();
    }
  };
  walk(walk, 0, 0);
  return best;
}

// Local: H(i, j) = max(0, best global score of q[a..i] against t[b..j] over all
// starts, empty pieces included); report the maximum and, as Parasail does, its
// first cell scanning target positions in the outer loop.
AlignResult brute_force_local(const ScoringScheme& scheme, Codes q, Codes t) {
  AlignResult result;
  if (q.empty() || t.empty()) return result;
  result.query_end = 0;
  result.target_end = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    for (std::size_t i = 0; i < q.size(); ++i) {
      int cell = 0;
      for (std::size_t a = 0; a <= i + 1; ++a) {
        for (std::size_t b = 0; b <= j + 1; ++b) {
          cell = std::max(
              cell, brute_force_global(scheme, q.subspan(a, i + 1 - a), t.subspan(b, j + 1 - b)));
        }
      }
      if (cell > result.score) {
        result.score = cell;
        result.query_end = static_cast<int>(i);
        result.target_end = static_cast<int>(j);
      }
    }
  }
  return result;
}

AlignResult traced(AlignMode mode, const ScoringScheme& scheme, std::string_view q,
                   std::string_view t) {
  return reference_align(mode, scheme, encode(scheme, q), encode(scheme, t));
}

}  // namespace

TEST_CASE("reference scores hand-checked alignments", "[align]") {
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  // 8 matches, one gap of 3: 16 - (5 + 2 * 2).
  const AlignResult gapped = traced(AlignMode::global, dna, "ACGTACGT", "ACGTTTTACGT");
  CHECK(gapped.score == 7);
  CHECK(gapped.query_end == 7);
  CHECK(gapped.target_end == 10);
  CHECK(gapped.query_begin == 0);
  CHECK(gapped.target_begin == 0);
  CHECK(gapped.cigar.find("3D") != std::string::npos);
  CHECK(gapped.matches == 8);
  CHECK(gapped.alignment_length == 11);
  CHECK(gapped.identity() == Approx(8.0 / 11));

  // AAA/A: one match and a gap of two query residues.
  const AlignResult end_gap = traced(AlignMode::global, dna, "AAA", "A");
  CHECK(end_gap.score == 2 - 7);
  CHECK(end_gap.alignment_length == 3);

  // Local: the best piece of a mismatching pair.
  const AlignResult local = traced(AlignMode::local, dna, "TTTTACGTACGTTTTT", "GGACGTACGGG");
  CHECK(local.score == 14);  // ACGTACG
  CHECK(local.cigar == "7=");
  CHECK(local.query_begin == 4);
  CHECK(local.query_end == 10);
  CHECK(local.target_begin == 2);
  CHECK(local.target_end == 8);

  // Parasail's classic example (blosum62, 11/1): SW 17 ending at (8, 4).
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  const AlignResult heagawghee = traced(AlignMode::local, b62, "HEAGAWGHEE", "PAWHEAE");
  CHECK(heagawghee.score == 17);
  CHECK(heagawghee.query_end == 8);
  CHECK(heagawghee.target_end == 4);
}

TEST_CASE("reference reports the end cell Parasail reports", "[align]") {
  const auto dna = ScoringScheme::match_mismatch(1, -1, {2, 1});
  // Two cells hold the maximum 1: (query 0, target 1) and (query 1, target 0).
  // Parasail scans target positions in the outer loop, so (1, 0) comes first.
  AlignResult r = reference_score(AlignMode::local, dna, encode(dna, "AC"), encode(dna, "CA"));
  CHECK(r.score == 1);
  CHECK(r.query_end == 1);
  CHECK(r.target_end == 0);
  // Same target column: the smaller query position wins (values checked with
  // parasail_aligner 2.6).
  r = reference_score(AlignMode::local, dna, encode(dna, "AAAAAAAAAA"), encode(dna, "AAAA"));
  CHECK(r.score == 4);
  CHECK(r.query_end == 3);
  CHECK(r.target_end == 3);
  r = reference_score(AlignMode::local, dna, encode(dna, "AAAAAAAAAA"), encode(dna, "TTTTACGTTTT"));
  CHECK(r.score == 1);
  CHECK(r.query_end == 0);
  CHECK(r.target_end == 4);
  // No positive cell: Parasail reports (0, 0).
  r = reference_score(AlignMode::local, dna, encode(dna, "CC"), encode(dna, "AA"));
  CHECK(r.score == 0);
  CHECK(r.query_end == 0);
  CHECK(r.target_end == 0);
  const AlignResult none =
      reference_align(AlignMode::local, dna, encode(dna, "CC"), encode(dna, "AA"));
  CHECK(none.cigar.empty());
  CHECK(none.query_begin == -1);
  CHECK(none.alignment_length == 0);
}

TEST_CASE("reference handles empty sequences", "[align]") {
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const auto seq = encode(dna, "ACGT");
  const Codes empty;
  for (bool traceback : {false, true}) {
    INFO("traceback " << traceback);
    auto run = [&](AlignMode mode, Codes q, Codes t) {
      return traceback ? reference_align(mode, dna, q, t) : reference_score(mode, dna, q, t);
    };
    AlignResult r = run(AlignMode::global, empty, seq);
    CHECK(r.score == -(5 + 3 * 2));
    CHECK(r.query_end == -1);
    CHECK(r.target_end == 3);
    if (traceback) {
      CHECK(r.cigar == "4D");
      CHECK(rescore_alignment(AlignMode::global, dna, empty, seq, r).problem.empty());
    }
    r = run(AlignMode::global, seq, empty);
    CHECK(r.score == -11);
    if (traceback) CHECK(r.cigar == "4I");
    r = run(AlignMode::global, empty, empty);
    CHECK(r.score == 0);
    CHECK(r.query_end == -1);
    CHECK(r.target_end == -1);
    for (const auto& [q, t] : {std::pair{empty, Codes(seq)}, std::pair{Codes(seq), empty}}) {
      r = run(AlignMode::local, q, t);
      CHECK(r.score == 0);
      CHECK(r.query_end == -1);
      CHECK(r.target_end == -1);
      CHECK(r.cigar.empty());
    }
  }
}

TEST_CASE("reference equals a brute force over all alignments of short sequences", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed << " (SEQFUSE_TEST_SEED=" << seed << " replays)");
  RandomSequences random(seed);
  struct Case {
    ScoringScheme scheme;
    std::string letters;
  };
  const std::vector<Case> cases{
      {ScoringScheme::match_mismatch(2, -3, {5, 2}), "ACGN"},
      {ScoringScheme::match_mismatch(1, -1, {1, 1}), "AC"},
      {ScoringScheme::match_mismatch(3, -1, {2, 1}), "AC"},
      {ScoringScheme::builtin("blosum62", {11, 1}), "AWCDX"},
      {ScoringScheme::builtin("pam30", {3, 1}), "ARND"},
      {ScoringScheme::builtin("nuc44", {4, 4}), "ACGTN"},
  };
  for (const Case& c : cases) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::string q =
          random.random(c.letters, static_cast<std::size_t>(random.uniform(0, 4)));
      const std::string t =
          random.random(c.letters, static_cast<std::size_t>(random.uniform(0, 4)));
      INFO(c.scheme.name() << " gaps " << c.scheme.gap_open() << "/" << c.scheme.gap_extend()
                           << " query '" << q << "' target '" << t << "'");
      const auto qc = encode(c.scheme, q);
      const auto tc = encode(c.scheme, t);
      CHECK(reference_score(AlignMode::global, c.scheme, qc, tc).score ==
            brute_force_global(c.scheme, qc, tc));
      const AlignResult expected = brute_force_local(c.scheme, qc, tc);
      const AlignResult local = reference_score(AlignMode::local, c.scheme, qc, tc);
      CHECK(local.score == expected.score);
      if (!qc.empty() && !tc.empty()) {
        CHECK(local.query_end == expected.query_end);
        CHECK(local.target_end == expected.target_end);
      }
    }
  }
}

TEST_CASE("reference tracebacks re-score to the reported score", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed << " (SEQFUSE_TEST_SEED=" << seed << " replays)");
  RandomSequences random(seed);
  const GapPenalties gap_pairs[] = {{11, 1}, {10, 2}, {5, 2}, {1, 1}, {0, 0}};
  for (const auto& scheme_case : test::all_scheme_cases()) {
    for (GapPenalties gaps : gap_pairs) {
      const ScoringScheme scheme = test::make_scheme(scheme_case, gaps);
      for (int trial = 0; trial < 6; ++trial) {
        const auto length = static_cast<std::size_t>(random.uniform(0, 300));
        const std::string q = random.random(scheme_case.letters, length);
        const std::string t = trial % 2 ? random.mutate(q, scheme_case.letters, 0.2)
                                        : random.random(scheme_case.letters, length / 2 + 1);
        INFO(scheme.name() << " gaps " << gaps.open << "/" << gaps.extend << " trial " << trial);
        const auto qc = encode(scheme, q);
        const auto tc = encode(scheme, t);
        for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
          INFO(mode_name(mode));
          const AlignResult full = reference_align(mode, scheme, qc, tc);
          const AlignResult score_only = reference_score(mode, scheme, qc, tc);
          CHECK(full.score == score_only.score);
          CHECK(full.query_end == score_only.query_end);
          CHECK(full.target_end == score_only.target_end);
          const Rescore rescored = rescore_alignment(mode, scheme, qc, tc, full);
          CHECK(rescored.problem == "");
          CHECK(rescored.score == full.score);
          CHECK(full.identity() >= 0.0);
          CHECK(full.identity() <= 1.0);
        }
      }
    }
  }
}

TEST_CASE("rescoring catches inconsistent alignments", "[align]") {
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const auto q = encode(dna, "ACGT");
  const auto t = encode(dna, "ACCT");
  AlignResult r = reference_align(AlignMode::global, dna, q, t);
  REQUIRE(r.cigar == "2=1X1=");
  CHECK(rescore_alignment(AlignMode::global, dna, q, t, r).score == 3);
  AlignResult wrong = r;
  wrong.cigar = "4=";
  CHECK(rescore_alignment(AlignMode::global, dna, q, t, wrong).problem != "");
  wrong.cigar = "2=1X";
  CHECK(rescore_alignment(AlignMode::global, dna, q, t, wrong).problem != "");
  wrong = r;
  wrong.matches = 2;
  CHECK(rescore_alignment(AlignMode::global, dna, q, t, wrong).problem != "");
  wrong = r;
  wrong.cigar = "2=1I1D1=";
  wrong.alignment_length = 5;
  const Rescore gaps = rescore_alignment(AlignMode::global, dna, q, t, wrong);
  CHECK(gaps.problem == "");
  CHECK(gaps.score == 2 + 2 - 5 - 5 + 2);
}

TEST_CASE("a local alignment against a 200 Mbp target fits 32-bit scores", "[align]") {
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const std::size_t target = 200'000'000;
  CHECK_NOTHROW(check_int_range(AlignMode::local, dna, 32, target));
  // A global one opens a gap as long as the target: 400 M, too near the
  // reference's minus infinity.
  CHECK_THROWS_WITH(check_int_range(AlignMode::global, dna, 32, target),
                    Catch::Contains("too long to score in 32-bit integers"));
  CHECK_THROWS(check_int_range(AlignMode::local, dna, 300'000'000, target));
}
