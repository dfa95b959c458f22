// --strand (strand.hpp): the reverse strand is the reverse complement of the
// query (IUPAC codes, case kept in text), aligned as a query; a minus-strand
// hit equals the scalar reference on the reverse-complemented query, `both`
// keeps per target the better strand (plus on a tie) and the --top N best
// of those, for search, --pairs and all against all, local and global, with
// and without traceback, against the scalar reference on random inputs.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "align/align_job.hpp"
#include "align/reference.hpp"
#include "align/strand.hpp"
#include "test_align_allvsall_support.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
namespace test = seqfuse::align::test;

namespace {

std::string reverse_complement(std::string_view s) {
  std::string out;
  append_reverse_complement(s, out);
  return out;
}

// Hits of run_stranded as lines (with the strand), in emitted order.
std::vector<std::string> stranded_lines(const AlignJob& job, Strand strand,
                                        const ScoringScheme& scheme, const EncodedSequences& q,
                                        const EncodedSequences& t) {
  std::vector<std::string> lines;
  (void)run_stranded(job, strand, scheme, q, t, [&](std::span<const AlignHit> hits) {
    for (const AlignHit& h : hits) lines.push_back(test::hit_line(h) + (h.reverse ? " -" : " +"));
  });
  return lines;
}

// One hit as the reference gives it: the query's text on its strand.
std::string reference_line(const AlignJob& job, const ScoringScheme& scheme, std::uint32_t query,
                           std::uint32_t target, const std::string& query_text, Codes target_codes,
                           bool reverse) {
  const std::vector<std::uint8_t> codes =
      test::encode(scheme, reverse ? reverse_complement(query_text) : query_text);
  AlignHit hit{query, target,
               job.traceback ? reference_align(job.mode, scheme, codes, target_codes)
                             : reference_score(job.mode, scheme, codes, target_codes)};
  return test::hit_line(hit) + (reverse ? " -" : " +");
}

}  // namespace

TEST_CASE("reverse complements: IUPAC codes, case kept; protein has none", "[align][strand]") {
  CHECK(reverse_complement("ACGTURYKMBVDHSWN") == "NWSDHBVKMRYAACGT");
  CHECK(reverse_complement("acgTnry") == "rynAcgt");
  CHECK(reverse_complement("") == "");
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const std::vector<std::uint8_t> complement = complement_codes(dna);
  REQUIRE(complement.size() == dna.alphabet_size());
  for (std::size_t c = 0; c < complement.size(); ++c)
    CHECK(complement[complement[c]] == c);  // an involution over the alphabet
  CHECK(dna.letter(complement[dna.code('R')]) == 'Y');
  CHECK(complement_codes(ScoringScheme::builtin("nuc44", {5, 2})).size() > 0);
  CHECK(complement_codes(ScoringScheme::builtin("blosum62", {11, 1})).empty());
  CHECK_THROWS(parse_strand("reverse"));
}

TEST_CASE("--strand minus and both equal the reference on the reverse-complemented query",
          "[align][strand]") {
  const std::uint64_t seed = test::test_seed();
  test::RandomSequences random(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  constexpr std::string_view kBases = "ACGTacgtN";
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<std::string> query_text, target_text;
    EncodedSequences queries(dna), targets(dna);
    const std::size_t nq = static_cast<std::size_t>(random.uniform(1, 8));
    const std::size_t nt = trial % 3 == 0 ? nq : static_cast<std::size_t>(random.uniform(1, 12));
    for (std::size_t k = 0; k < nt; ++k) {
      target_text.push_back(random.random(kBases, static_cast<std::size_t>(random.uniform(0, 80))));
      targets.append(target_text.back(), "t");
    }
    for (std::size_t k = 0; k < nq; ++k) {
      // Queries from the targets' strands (either), so both strands score.
      const std::string& from = target_text[k % nt];
      const std::string piece = random.uniform(0, 1) ? reverse_complement(from) : from;
      query_text.push_back(random.uniform(0, 5) == 0 ? std::string(kBases.substr(0, 1))
                                                     : random.mutate(piece, "ACGT", 0.15));
      queries.append(query_text.back(), "q");
    }
    const auto t_views = targets.views();
    for (const AlignMode mode : {AlignMode::local, AlignMode::global})
      for (const bool traceback : {false, true})
        for (const std::size_t top : {std::size_t{0}, std::size_t{2}}) {
          AlignJob job;
          job.mode = mode;
          job.top = top;
          job.traceback = traceback;
          job.threads = 2;
          INFO("seed " << seed << " trial " << trial << " " << mode_name(mode) << " top " << top
                       << (traceback ? " traceback" : ""));
          // Search: the oracle scores every target on both strands.
          job.layout = PairLayout::search;
          std::vector<std::string> minus, both;
          for (std::uint32_t q = 0; q < nq; ++q) {
            struct Scored {
              int score;
              std::uint32_t target;
              bool reverse;
              std::string line;
            };
            std::vector<Scored> plus_hits, minus_hits, best;
            for (std::uint32_t t = 0; t < nt; ++t)
              for (const bool reverse : {false, true}) {
                std::string line =
                    reference_line(job, dna, q, t, query_text[q], t_views[t], reverse);
                const int score = std::stoi(line.substr(line.find(' ', line.find(' ') + 1) + 1));
                (reverse ? minus_hits : plus_hits).push_back({score, t, reverse, line});
              }
            for (std::uint32_t t = 0; t < nt; ++t)
              best.push_back(minus_hits[t].score > plus_hits[t].score ? minus_hits[t]
                                                                      : plus_hits[t]);
            const auto order = [](const Scored& a, const Scored& b) {
              return a.score != b.score ? a.score > b.score : a.target < b.target;
            };
            std::stable_sort(minus_hits.begin(), minus_hits.end(), order);
            std::stable_sort(best.begin(), best.end(), order);
            for (std::size_t k = 0; k < nt && (top == 0 || k < top); ++k) {
              minus.push_back(minus_hits[k].line);
              both.push_back(best[k].line);
            }
          }
          CHECK(stranded_lines(job, Strand::minus, dna, queries, targets) == minus);
          CHECK(stranded_lines(job, Strand::both, dna, queries, targets) == both);
          // Pairs (as many targets as queries): the better strand, plus on a tie.
          if (nq == nt) {
            job.layout = PairLayout::pairs;
            std::vector<std::string> pairs_both;
            for (std::uint32_t k = 0; k < nq; ++k) {
              const std::string p =
                  reference_line(job, dna, k, k, query_text[k], t_views[k], false);
              const std::string m = reference_line(job, dna, k, k, query_text[k], t_views[k], true);
              const auto score = [](const std::string& l) {
                return std::stoi(l.substr(l.find(' ', l.find(' ') + 1) + 1));
              };
              pairs_both.push_back(score(m) > score(p) ? m : p);
            }
            CHECK(stranded_lines(job, Strand::both, dna, queries, targets) == pairs_both);
          }
        }
  }
}

TEST_CASE("--strand both all against all equals the search of the set against itself",
          "[align][strand][allvsall]") {
  const std::uint64_t seed = test::test_seed();
  test::RandomSequences random(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  for (int trial = 0; trial < 6; ++trial) {
    EncodedSequences set(dna);
    std::string parent = random.random("ACGT", 60);
    const std::size_t n = static_cast<std::size_t>(random.uniform(1, 14));
    for (std::size_t k = 0; k < n; ++k) {
      const std::string s = random.mutate(parent, "ACGT", 0.2);
      set.append(k % 2 ? reverse_complement(s) : s, "r");
    }
    for (const Strand strand : {Strand::minus, Strand::both})
      for (const std::size_t top : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        AlignJob job;
        job.top = top;
        job.traceback = trial % 2 == 1;
        job.layout = PairLayout::all_vs_all;
        INFO("seed " << seed << " trial " << trial << " top " << top);
        const std::vector<std::string> got = stranded_lines(job, strand, dna, set, set);
        // Oracle: the search of the set against itself (every hit), the
        // record's own hit left out, cut to --top.
        job.layout = PairLayout::search;
        job.top = 0;
        std::vector<std::string> want;
        std::vector<std::size_t> taken(n);
        (void)run_stranded(job, strand, dna, set, set, [&](std::span<const AlignHit> hits) {
          for (const AlignHit& h : hits)
            if (h.query != h.target && (top == 0 || taken[h.query]++ < top))
              want.push_back(test::hit_line(h) + (h.reverse ? " -" : " +"));
        });
        CHECK(got == want);
        if (strand == Strand::both)
          CHECK(got.size() == n * (top == 0 ? n - 1 : std::min(top, n - 1)));
      }
  }
}
