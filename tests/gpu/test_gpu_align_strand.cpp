// The GPU engine against the CPU engine (#18 parts 3 and 4): --strand both
// (search, pairs, all against all) and all against all reported for both
// records of each pair (--strand plus), on one worker (gpu:0), two workers
// of one card (gpu:0,0) and the target set in parts; local and global, with
// and without traceback, --top cutting through ties. Identical hits in the
// same order, strands included. Fresh random DNA each run (seed printed).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../unit/test_align_allvsall_support.hpp"
#include "../unit/test_align_support.hpp"
#include "align/align_job.hpp"
#include "align/strand.hpp"

namespace {

using namespace seqfuse::align;
namespace test = seqfuse::align::test;

std::string reverse_complement(std::string_view s) {
  std::string out;
  append_reverse_complement(s, out);
  return out;
}

std::vector<std::string> lines_of(const AlignJob& job, Strand strand, const ScoringScheme& scheme,
                                  const EncodedSequences& q, const EncodedSequences& t) {
  std::vector<std::string> lines;
  (void)run_stranded(job, strand, scheme, q, t, [&](std::span<const AlignHit> hits) {
    for (const AlignHit& h : hits) lines.push_back(test::hit_line(h) + (h.reverse ? " -" : " +"));
  });
  return lines;
}

void require_same(const std::vector<std::string>& expected, const std::vector<std::string>& got) {
  REQUIRE(expected.size() == got.size());
  for (std::size_t k = 0; k < expected.size(); ++k) REQUIRE(got[k] == expected[k]);
}

}  // namespace

TEST_CASE("GPU --strand both and all against all equal the CPU engine", "[gpu][align][strand]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  // Targets of 50-1500 bases, a few repeated (ties); queries mutated pieces
  // of either strand of a target, or random.
  std::vector<std::string> target_text;
  EncodedSequences targets(dna), queries(dna), pair_targets(dna);
  for (std::size_t k = 0; k < 600; ++k) {
    target_text.push_back(k > 300 && k % 9 == 0 ? target_text[k - 300]
                                                : rng.random("ACGT", static_cast<std::size_t>(
                                                                         rng.uniform(50, 1500))));
    targets.append(target_text.back(), "t");
  }
  for (std::size_t k = 0; k < 200; ++k) {
    const std::string& from = target_text[static_cast<std::size_t>(rng.uniform(0, 599))];
    const std::size_t begin = static_cast<std::size_t>(rng.uniform(0, int(from.size()) / 2));
    std::string piece = from.substr(begin, static_cast<std::size_t>(rng.uniform(30, 300)));
    if (k % 2) piece = reverse_complement(piece);
    const std::string query = k % 5 == 0 ? rng.random("ACGT", 120) : rng.mutate(piece, "ACGT", 0.1);
    queries.append(query.empty() ? std::string("A") : query, "q");
    pair_targets.append_codes(targets[k]);
  }
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    for (const bool traceback : {false, true})
      for (const PairLayout layout :
           {PairLayout::search, PairLayout::pairs, PairLayout::all_vs_all})
        for (const Strand strand : {Strand::plus, Strand::both}) {
          if (layout != PairLayout::all_vs_all && strand == Strand::plus)
            continue;  // covered elsewhere
          AlignJob job;
          job.mode = mode;
          job.layout = layout;
          job.top = layout == PairLayout::all_vs_all ? 7 : 10;
          job.traceback = traceback;
          job.threads = 4;
          const EncodedSequences& t = layout == PairLayout::pairs ? pair_targets : targets;
          INFO(mode_name(mode) << " layout " << static_cast<int>(layout) << " strand "
                               << static_cast<int>(strand) << " traceback " << traceback);
          const std::vector<std::string> cpu = lines_of(job, strand, dna, queries, t);
          CHECK(!cpu.empty());
          if (layout == PairLayout::all_vs_all && strand == Strand::plus) {
            std::vector<std::string> oracle = test::all_vs_all_oracle(job, dna, queries);
            for (std::string& line : oracle) line += " +";  // as lines_of marks the strand
            require_same(oracle, cpu);
          }
          job.gpu = true;
          job.devices = {0};
          require_same(cpu, lines_of(job, strand, dna, queries, t));
          job.devices = {0, 0};
          require_same(cpu, lines_of(job, strand, dna, queries, t));
          if (layout != PairLayout::pairs) {
            job.devices = {0};
            job.gpu_part_residues = targets.flat_codes().size() / 5;  // the set in parts
            require_same(cpu, lines_of(job, strand, dna, queries, t));
          }
        }
}
