// align-sw / align-nw on several GPU workers (--device gpu:0,0 and
// gpu:0,0,0: two and three workers on one card, the multi-device path on a
// one-GPU machine) against one worker: identical hits, in the same order,
// for search, all-against-all and pairs, local and global, with and without
// traceback, the targets resident or each worker's range in parts, ties
// across workers, more workers than targets. Then the CLI: --device gpu:0
// against gpu:0,0 byte for byte. Fresh random inputs each run (seed printed).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../unit/test_align_support.hpp"
#include "../unit/test_temp_dir.hpp"
#include "align/align_job.hpp"

namespace {

using seqfuse::align::AlignHit;
using seqfuse::align::AlignJob;
using seqfuse::align::AlignMode;
using seqfuse::align::EncodedSequences;
using seqfuse::align::PairLayout;
using seqfuse::align::ScoringScheme;
namespace test = seqfuse::align::test;

constexpr std::string_view kProtein = "ACDEFGHIKLMNPQRSTVWY";

std::string line_of(const AlignHit& h) {
  const auto& r = h.result;
  return std::to_string(h.query) + " " + std::to_string(h.target) + " " + std::to_string(r.score) +
         " [" + std::to_string(r.query_begin) + "," + std::to_string(r.target_begin) + "]-[" +
         std::to_string(r.query_end) + "," + std::to_string(r.target_end) + "] " +
         (r.traced ? "t " : "- ") + r.cigar + " m" + std::to_string(r.matches) + " l" +
         std::to_string(r.alignment_length);
}

std::vector<std::string> run_on(const AlignJob& job, const ScoringScheme& scheme,
                                const EncodedSequences& q, const EncodedSequences& t,
                                std::vector<int> devices) {
  AlignJob on = job;
  on.gpu = true;
  on.devices = std::move(devices);
  std::vector<std::string> lines;
  std::uint32_t last_query = 0;
  bool ordered = true;
  (void)seqfuse::align::run_alignment(on, scheme, q, t, [&](const AlignHit& h) {
    ordered = ordered && h.query >= last_query;
    last_query = h.query;
    lines.push_back(line_of(h));
  });
  CHECK(ordered);
  return lines;
}

// Random proteins of 20-600 residues; queries mutated copies of targets (so
// hits have real alignments); some targets repeated far apart, so equal
// scores fall into different workers' ranges.
struct Sets {
  EncodedSequences queries, targets;
  explicit Sets(const ScoringScheme& scheme) : queries(scheme), targets(scheme) {}
};

Sets random_sets(const ScoringScheme& scheme, test::RandomSequences& rng, std::size_t query_count,
                 std::size_t target_count) {
  Sets sets(scheme);
  std::vector<std::string> targets;
  for (std::size_t k = 0; k < target_count; ++k) {
    if (k >= target_count / 2 && k % 7 == 0)
      targets.push_back(targets[k - target_count / 2]);  // a copy from the first half
    else
      targets.push_back(rng.random(kProtein, static_cast<std::size_t>(rng.uniform(20, 600))));
  }
  for (std::size_t k = 0; k < target_count; ++k)
    sets.targets.append(targets[k], std::string("t").append(std::to_string(k)));
  for (std::size_t k = 0; k < query_count; ++k) {
    const std::string query =
        k % 3 == 0 ? rng.random(kProtein, static_cast<std::size_t>(rng.uniform(20, 600)))
                   : rng.mutate(targets[static_cast<std::size_t>(
                                    rng.uniform(0, static_cast<int>(target_count) - 1))],
                                kProtein, 0.2);
    sets.queries.append(query.empty() ? std::string("A") : query,
                        std::string("q").append(std::to_string(k)));
  }
  return sets;
}

void require_same(const std::vector<std::string>& one, const std::vector<std::string>& many) {
  REQUIRE(one.size() == many.size());
  for (std::size_t k = 0; k < one.size(); ++k) REQUIRE(many[k] == one[k]);
}

}  // namespace

TEST_CASE("GPU search, all-against-all and pairs on 2 and 3 workers equal one worker's hits",
          "[gpu][align][devices]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const Sets sets = random_sets(scheme, rng, 300, 2000);
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    for (const PairLayout layout : {PairLayout::search, PairLayout::all_vs_all, PairLayout::pairs})
      for (const bool traceback : {false, true}) {
        AlignJob job;
        job.mode = mode;
        job.layout = layout;
        job.top = layout == PairLayout::all_vs_all ? 0 : 10;
        job.traceback = traceback;
        job.threads = 4;
        // Pairs: query k with target k.
        EncodedSequences pair_targets(scheme);
        for (std::size_t k = 0; k < sets.queries.size(); ++k)
          pair_targets.append_codes(sets.targets[k]);
        const EncodedSequences& targets = layout == PairLayout::pairs ? pair_targets : sets.targets;
        INFO(seqfuse::align::mode_name(mode)
             << " layout " << static_cast<int>(layout) << " traceback " << traceback);
        const auto one = run_on(job, scheme, sets.queries, targets, {0});
        CHECK(!one.empty());
        require_same(one, run_on(job, scheme, sets.queries, targets, {0, 0}));
        require_same(one, run_on(job, scheme, sets.queries, targets, {0, 0, 0}));
        if (layout != PairLayout::pairs) {
          // Every worker's range in parts (a database larger than the devices).
          job.gpu_part_residues = sets.targets.flat_codes().size() / 7;
          require_same(one, run_on(job, scheme, sets.queries, targets, {0, 0}));
          require_same(one, run_on(job, scheme, sets.queries, targets, {0, 0, 0}));
        }
      }
}

TEST_CASE("GPU workers with top 1 and ties, and more workers than targets",
          "[gpu][align][devices]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed + 1);
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  Sets sets = random_sets(scheme, rng, 40, 2);
  for (const bool traceback : {false, true})
    for (const std::size_t top : {std::size_t{0}, std::size_t{1}}) {
      AlignJob job;
      job.mode = AlignMode::local;
      job.layout = PairLayout::search;
      job.top = top;
      job.traceback = traceback;
      job.threads = 2;
      INFO("traceback " << traceback << " top " << top);
      const auto one = run_on(job, scheme, sets.queries, sets.targets, {0});
      require_same(one, run_on(job, scheme, sets.queries, sets.targets, {0, 0, 0, 0, 0}));
      job.layout = PairLayout::all_vs_all;
      require_same(run_on(job, scheme, sets.queries, sets.targets, {0}),
                   run_on(job, scheme, sets.queries, sets.targets, {0, 0, 0}));
    }
  // Every target the same: all scores tie, and top 3 must be targets 0, 1, 2
  // whichever worker holds them.
  EncodedSequences same(scheme), queries(scheme);
  const std::string protein = rng.random(kProtein, 200);
  for (int k = 0; k < 50; ++k) same.append(protein, "s");
  for (int k = 0; k < 5; ++k) queries.append(rng.mutate(protein, kProtein, 0.1), "q");
  AlignJob job;
  job.top = 3;
  job.traceback = true;
  const auto one = run_on(job, scheme, queries, same, {0});
  REQUIRE(one.size() == 15);
  CHECK(one[0].rfind("0 0 ", 0) == 0);
  CHECK(one[2].rfind("0 2 ", 0) == 0);
  require_same(one, run_on(job, scheme, queries, same, {0, 0, 0}));
}

TEST_CASE("a GPU worker that fails fails the whole run; the next run is unharmed",
          "[gpu][align][devices]") {
  test::RandomSequences rng(test::test_seed());
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const Sets sets = random_sets(scheme, rng, 30, 30);
  for (const PairLayout layout : {PairLayout::search, PairLayout::pairs}) {
    AlignJob job;
    job.layout = layout;
    job.gpu = true;
    job.devices = {0, 9999};  // no such device
    std::size_t hits = 0;
    CHECK_THROWS(seqfuse::align::run_alignment(job, scheme, sets.queries, sets.targets,
                                               [&](const AlignHit&) { ++hits; }));
    CHECK(hits == 0);
    CHECK(!run_on(job, scheme, sets.queries, sets.targets, {0, 0}).empty());
  }
}

TEST_CASE("seqfuse --device gpu:0,0 output equals --device gpu:0's (CLI)",
          "[gpu][align][devices]") {
  const std::filesystem::path sf =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() / "seqfuse";
  REQUIRE(std::filesystem::exists(sf));
  seqfuse::test::TempDir dir;
  const std::string pq = (test::kAlignData / "proteins_queries.fa").string();
  const std::string pt = (test::kAlignData / "proteins_targets.fa").string();
  const std::string lq = (test::kAlignData / "lambda_queries.fa").string();
  const std::string lt = (test::kAlignData / "lambda_targets.fa").string();
  const std::vector<std::string> runs{
      "align-sw " + pq + " " + pt + " --top 5",
      "align-nw " + pq + " " + pt + " --top 0 --format blast6",
      "align-sw " + pq + " --top 3",
      "align-sw " + lq + " " + lt + " --pairs",
      "align-nw " + lq + " " + lt + " --pairs --traceback --format sam",
      "align-sw " + pq + " " + pt + " --top 4 --traceback --format sam",
      "align-nw " + pq + " --top 2 --traceback",
  };
  for (std::size_t k = 0; k < runs.size(); ++k) {
    INFO(runs[k]);
    std::string outputs[3];
    int index = 0;
    for (const char* device : {"gpu:0", "gpu:0,0", "gpu:0,0,0"}) {
      const std::filesystem::path out = dir.file(std::to_string(k) + "-" + std::to_string(index));
      const std::string command =
          sf.string() + " " + runs[k] + " -q --device " + device + " -o " + out.string();
      REQUIRE(std::system(command.c_str()) == 0);
      outputs[index] = seqfuse::test::slurp(out);
      // SAM's @PG line holds the command line, which names the device.
      const std::size_t pg = outputs[index].find("@PG\t");
      if (pg != std::string::npos) outputs[index].erase(pg, outputs[index].find('\n', pg) - pg);
      ++index;
    }
    CHECK(!outputs[0].empty());
    CHECK(outputs[1] == outputs[0]);
    CHECK(outputs[2] == outputs[0]);
  }
}
