// All against all (one input file): every record gets its --top N best hits
// among all the others, exactly the hits of searching the file against
// itself minus the self hits (the oracle), in the same order and with the
// same alignments (end cells, CIGARs: a record's hit on an earlier record is
// the alignment with that record as the query, not the mirrored one), for
// symmetric matrices (each pair scored once) and an asymmetric one.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "align/align_job.hpp"
#include "align/reference.hpp"
#include "test_align_allvsall_support.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
namespace test = seqfuse::align::test;

namespace {

// Families of mutated copies (real alignments, many equal scores: exact
// copies tie), plus a few lengths 0 and 1.
EncodedSequences random_set(const ScoringScheme& scheme, std::string_view letters,
                            test::RandomSequences& random, std::size_t count) {
  EncodedSequences set(scheme);
  std::string parent;
  for (std::size_t k = 0; k < count; ++k) {
    if (k % 5 == 0)
      parent = random.random(letters, static_cast<std::size_t>(random.uniform(5, 90)));
    const int kind = random.uniform(0, 19);
    const std::string seq = kind == 0   ? std::string()
                            : kind == 1 ? random.random(letters, 1)
                            : kind == 2 ? parent
                                        : random.mutate(parent, letters, 0.2);
    set.append(seq, std::string("r") + std::to_string(k));
  }
  return set;
}

}  // namespace

TEST_CASE("all against all equals the search of the set against itself minus self hits",
          "[align][allvsall]") {
  const std::uint64_t seed = test::test_seed();
  test::RandomSequences random(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const ScoringScheme protein = ScoringScheme::builtin("blosum62", {11, 1});
  // Asymmetric: A against C scores unlike C against A, so (i, j) and (j, i)
  // differ and every ordered pair must be scored.
  const std::vector<int> asym_table{3, -4, -1, -2, -2, 2, -3, -1, -4, -1, 4, -3, -1, -3, -2, 1};
  const ScoringScheme asym("asym", "ACGT", asym_table, {4, 1});
  struct Case {
    const ScoringScheme* scheme;
    std::string_view letters;
  };
  for (const Case c :
       {Case{&dna, "ACGT"}, Case{&protein, "ACDEFGHIKLMNPQRSTVWY"}, Case{&asym, "ACGT"}}) {
    for (int trial = 0; trial < 6; ++trial) {
      const EncodedSequences set =
          random_set(*c.scheme, c.letters, random, static_cast<std::size_t>(random.uniform(1, 40)));
      for (const AlignMode mode : {AlignMode::local, AlignMode::global})
        for (const bool traceback : {false, true})
          for (const std::size_t top : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
            AlignJob job;
            job.mode = mode;
            job.layout = PairLayout::all_vs_all;
            job.top = top;
            job.traceback = traceback;
            job.threads = 1 + static_cast<unsigned>(trial % 3);
            INFO("seed " << seed << ", " << c.scheme->name() << ", trial " << trial << ", "
                         << set.size() << " records, " << mode_name(mode) << ", top " << top
                         << (traceback ? ", traceback" : ""));
            const std::vector<std::string> got = test::hit_lines(job, *c.scheme, set, set);
            const std::vector<std::string> want = test::all_vs_all_oracle(job, *c.scheme, set);
            REQUIRE(got == want);
            // Every record gets min(top, others) hits: the last one too.
            const std::size_t others = set.size() - 1;
            CHECK(got.size() == set.size() * (top == 0 ? others : std::min(top, others)));
          }
    }
  }
}

TEST_CASE("all against all: a hit on an earlier record is that pair aligned the other way",
          "[align][allvsall]") {
  // Two records whose local alignment has tied end cells: the end cell and
  // the CIGAR of j against i are not i against j's, mirrored.
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  EncodedSequences set(dna);
  set.append("ACGTTTTACGTAAAAACGT", "a");
  set.append("TTACGTACGGGACGTGACGTC", "b");
  AlignJob job;
  job.layout = PairLayout::all_vs_all;
  job.top = 0;
  job.traceback = true;
  std::vector<AlignHit> hits;
  (void)run_alignment(job, dna, set, set, [&](const AlignHit& h) { hits.push_back(h); });
  REQUIRE(hits.size() == 2);
  const auto views = set.views();
  for (const AlignHit& h : hits) {
    const AlignResult want =
        reference_align(AlignMode::local, dna, views[h.query], views[h.target]);
    CHECK(h.result.score == want.score);
    CHECK(h.result.query_end == want.query_end);
    CHECK(h.result.target_end == want.target_end);
    CHECK(h.result.query_begin == want.query_begin);
    CHECK(h.result.cigar == want.cigar);
  }
}
