// The GPU traceback engine against the scalar reference_align, field by
// field (score, end and begin cells, CIGAR, matches, length): every built-in
// matrix, DNA with N and IUPAC codes, several gap pairs, both modes, lengths
// 0, 1, 2 up to 2,000, all-N, scores beyond 16 bits; small budgets so many
// batches reuse (stale) device buffers. Then --device gpu --traceback
// against --device cpu --traceback on the align fixtures, through the job
// layer and through the CLI. Fresh random inputs each run (seed printed).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../unit/test_align_support.hpp"
#include "../unit/test_temp_dir.hpp"
#include "align/align_job.hpp"
#include "align/gpu_params.hpp"
#include "align/gpu_traceback.hpp"
#include "align/reference.hpp"
#include "gpu/align/traceback.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::AlignResult;
using seqfuse::align::GapPenalties;
using seqfuse::align::ScoringScheme;
namespace gpu = seqfuse::gpu;
namespace test = seqfuse::align::test;

using Flat = test::FlatCodes;

std::string describe(const AlignResult& r) {
  return std::to_string(r.score) + " [" + std::to_string(r.query_begin) + "," +
         std::to_string(r.target_begin) + "]-[" + std::to_string(r.query_end) + "," +
         std::to_string(r.target_end) + "] " + r.cigar + " m" + std::to_string(r.matches) + " l" +
         std::to_string(r.alignment_length);
}

bool same(const AlignResult& a, const AlignResult& b) {
  return a.traced == b.traced && a.score == b.score && a.query_end == b.query_end &&
         a.target_end == b.target_end && a.query_begin == b.query_begin &&
         a.target_begin == b.target_begin && a.cigar == b.cigar && a.matches == b.matches &&
         a.alignment_length == b.alignment_length;
}

// Traces pairs (q, t) = (k, k) plus, when there are enough targets, a few
// crossed ones on the GPU, output poisoned first, and requires every pair
// to equal reference_align. Returns the output for further checks.
gpu::TraceOutput require_equal_to_reference(const ScoringScheme& scheme, AlignMode mode,
                                            const Flat& queries, const Flat& targets,
                                            std::uint64_t budget) {
  std::vector<gpu::TracePair> pairs;
  for (std::uint32_t k = 0; k < queries.size(); ++k) pairs.push_back({k, k});
  for (std::uint32_t k = 0; k + 1 < queries.size(); k += 7) pairs.push_back({k, k + 1});
  gpu::DeviceTracer tracer(queries.codes, queries.offsets, targets.codes, targets.offsets);
  gpu::TraceOutput out;
  seqfuse::align::trace::TracedPair poison;
  poison.score = -7777;
  poison.query_begin = poison.target_begin = -7;
  poison.run_count = 3;
  poison.run_offset = 99;
  out.pairs.assign(pairs.size(), poison);
  out.runs.assign(128, 0xFFFFFFFFu);
  out.refused.assign(3, 5);
  REQUIRE(tracer.trace(seqfuse::align::gpu_score_params(scheme, mode), pairs, out, budget) ==
          gpu::Status::kSuccess);
  REQUIRE(out.pairs.size() == pairs.size());
  CHECK(out.refused.empty());
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto q = queries[pairs[k].query];
    const auto t = targets[pairs[k].target];
    const AlignResult want = seqfuse::align::reference_align(mode, scheme, q, t);
    const AlignResult got = seqfuse::align::traced_result(out.pairs[k], out.runs);
    if (!same(got, want) && ++wrong <= 5) {
      UNSCOPED_INFO("pair " << k << " (" << q.size() << " x " << t.size() << "): gpu "
                            << describe(got) << "; reference " << describe(want));
    }
  }
  CHECK(wrong == 0);
  return out;
}

}  // namespace

TEST_CASE("GPU traceback equals reference_align on random pairs", "[gpu][align][traceback]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        Flat queries, targets;
        for (int k = 0; k < 100; ++k) {
          const int m = k < 9 ? k / 3 : rng.uniform(1, 250);  // 0, 1, 2 against 0, 1, 2
          const int n = k < 9 ? k % 3 : rng.uniform(1, 250);
          const std::string q = rng.random(scheme_case.letters, static_cast<std::size_t>(m));
          const std::string t = k % 3 == 0 && k >= 9
                                    ? rng.mutate(q, scheme_case.letters, 0.2)
                                    : rng.random(scheme_case.letters, static_cast<std::size_t>(n));
          queries.add(test::encode(scheme, q));
          targets.add(test::encode(scheme, t));
        }
        // A budget of a few groups (many batches), then the default one.
        (void)require_equal_to_reference(scheme, mode, queries, targets, 256 * 1024);
        (void)require_equal_to_reference(scheme, mode, queries, targets, 0);
      });
}

TEST_CASE("GPU traceback: DNA with N and IUPAC, all-N, 2,000 bp, scores beyond 16 bits",
          "[gpu][align][traceback]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const ScoringScheme protein = ScoringScheme::builtin("blosum62", {11, 1});
  for (const GapPenalties gaps : {GapPenalties{5, 2}, GapPenalties{3, 3}, GapPenalties{10, 1}}) {
    const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, gaps);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
      INFO(seqfuse::align::mode_name(mode) << " " << gaps.open << "/" << gaps.extend);
      Flat queries, targets;
      for (int k = 0; k < 300; ++k) {
        const std::string q = rng.random(k % 2 ? "ACGT" : "ACGTNRYSWKMBDHV",
                                         static_cast<std::size_t>(rng.uniform(0, 400)));
        queries.add(test::encode(dna, q));
        targets.add(
            test::encode(dna, k % 3 ? rng.mutate(q, "ACGTN", 0.1) : rng.random("ACGT", q.size())));
      }
      queries.add(test::encode(dna, std::string(300, 'N')));
      targets.add(test::encode(dna, std::string(250, 'N')));
      queries.add(test::encode(dna, std::string(40, 'N')));
      targets.add(test::encode(dna, "ACGTACGTAC"));
      for (int k = 0; k < 6; ++k) {
        const std::string base =
            rng.random("ACGT", static_cast<std::size_t>(rng.uniform(1500, 2000)));
        queries.add(test::encode(dna, base));
        targets.add(test::encode(dna, k % 2 ? rng.mutate(base, "ACGT", 0.08)
                                            : base.substr(static_cast<std::size_t>(k) * 100, 700)));
      }
      (void)require_equal_to_reference(dna, mode, queries, targets, 0);
      (void)require_equal_to_reference(dna, mode, queries, targets, std::uint64_t{4} << 20);
    }
  }
  // Identical 6,000-residue proteins: a score of ~30,000, past 16-bit lanes.
  const std::string p = rng.random("ARNDCQEGHILKMFPSTWYV", 6000);
  Flat queries, targets;
  queries.add(test::encode(protein, p));
  targets.add(test::encode(protein, p));
  queries.add(test::encode(protein, p));
  targets.add(test::encode(protein, rng.mutate(p, "ARNDCQEGHILKMFPSTWYV", 0.1)));
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    (void)require_equal_to_reference(protein, mode, queries, targets, 0);
}

TEST_CASE("GPU traceback refuses what it cannot do and leaves oversized pairs to the CPU",
          "[gpu][align][traceback]") {
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  Flat queries, targets;
  queries.add(test::encode(dna, std::string(3000, 'A')));
  targets.add(test::encode(dna, std::string(3000, 'A')));
  queries.add(test::encode(dna, "ACGT"));
  targets.add(test::encode(dna, "AGT"));
  gpu::DeviceTracer tracer(queries.codes, queries.offsets, targets.codes, targets.offsets);
  const auto params = seqfuse::align::gpu_score_params(dna, AlignMode::global);
  gpu::TraceOutput out;
  const std::vector<gpu::TracePair> pairs{{0, 0}, {1, 1}};
  // 3,000 x 3,000 needs ~4.5 MB of directions: refused under a 1 MB budget.
  REQUIRE(tracer.trace(params, pairs, out, 1 << 20) == gpu::Status::kSuccess);
  CHECK(out.refused == std::vector<std::uint32_t>{0});
  CHECK(same(seqfuse::align::traced_result(out.pairs[1], out.runs),
             seqfuse::align::reference_align(AlignMode::global, dna, queries[1], targets[1])));

  const std::vector<gpu::TracePair> bad_index{{0, 2}};
  CHECK(tracer.trace(params, bad_index, out) == gpu::Status::kInvalidArgument);
  auto small = params;
  small.alphabet_size = 2;
  small.matrix.assign(4, 1);
  CHECK(tracer.trace(small, pairs, out) == gpu::Status::kInvalidArgument);  // codes >= 2
  small.alphabet_size = 40;
  small.matrix.assign(1600, 1);
  CHECK(gpu::DeviceTracer::can_implement(small) == gpu::Status::kInvalidSize);

  // Through GpuTracer the refused pair is traced by the CPU reference.
  seqfuse::align::EncodedSequences q(dna), t(dna);
  q.append(std::string(3000, 'A'), "q0");
  t.append(std::string(3000, 'A'), "t0");
  q.append("ACGT", "q1");
  t.append("AGT", "t1");
  seqfuse::align::GpuTracer gpu_tracer(dna, AlignMode::global, q, t, 1 << 20);
  std::vector<AlignResult> traced(2);
  const std::vector<seqfuse::align::PairIndex> both{{0, 0}, {1, 1}};
  gpu_tracer.align_pairs(both, traced);
  CHECK(gpu_tracer.cpu_pairs() == 1);
  CHECK(traced[0].cigar == "3000=");
  CHECK(same(traced[1], seqfuse::align::reference_align(AlignMode::global, dna, q[1], t[1])));
}

namespace {

struct JobCase {
  std::string query_file, target_file;
  bool dna;
};

std::vector<std::string> run_job(const seqfuse::align::AlignJob& job, const ScoringScheme& scheme,
                                 const seqfuse::align::EncodedSequences& q,
                                 const seqfuse::align::EncodedSequences& t) {
  std::vector<std::string> lines;
  (void)seqfuse::align::run_alignment(job, scheme, q, t, [&](const seqfuse::align::AlignHit& h) {
    lines.push_back(std::to_string(h.query) + " " + std::to_string(h.target) + " " +
                    describe(h.result));
  });
  return lines;
}

}  // namespace

TEST_CASE("--device gpu --traceback equals --device cpu --traceback on the fixtures (job layer)",
          "[gpu][align][traceback]") {
  for (const JobCase& c : {JobCase{"lambda_queries.fa", "lambda_targets.fa", true},
                           JobCase{"proteins_queries.fa", "proteins_targets.fa", false}}) {
    const ScoringScheme scheme = c.dna ? ScoringScheme::match_mismatch(2, -3, {5, 2})
                                       : ScoringScheme::builtin("blosum62", {11, 1});
    seqfuse::align::EncodedSequences q(scheme), t(scheme);
    for (const auto& r : test::read_fasta(test::kAlignData / c.query_file))
      q.append(r.sequence, r.name);
    for (const auto& r : test::read_fasta(test::kAlignData / c.target_file))
      t.append(r.sequence, r.name);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
      for (const auto layout :
           {seqfuse::align::PairLayout::pairs, seqfuse::align::PairLayout::search,
            seqfuse::align::PairLayout::all_vs_all}) {
        INFO(c.query_file << " " << seqfuse::align::mode_name(mode) << " layout "
                          << static_cast<int>(layout));
        seqfuse::align::AlignJob job;
        job.mode = mode;
        job.layout = layout;
        job.top = layout == seqfuse::align::PairLayout::search ? 0 : 5;
        job.traceback = true;
        job.threads = 2;
        const auto cpu = run_job(job, scheme, q, t);
        job.gpu = true;
        const auto on_gpu = run_job(job, scheme, q, t);
        REQUIRE(cpu.size() == on_gpu.size());
        for (std::size_t k = 0; k < cpu.size(); ++k) REQUIRE(on_gpu[k] == cpu[k]);
      }
    }
  }
}

TEST_CASE("seqfuse --device gpu --traceback output equals --device cpu's (CLI)",
          "[gpu][align][traceback]") {
  // The seqfuse binary sits beside this test binary (build/bin, bundle/bin).
  const std::filesystem::path sf =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() / "seqfuse";
  REQUIRE(std::filesystem::exists(sf));
  seqfuse::test::TempDir dir;
  const std::string lq = (test::kAlignData / "lambda_queries.fa").string();
  const std::string lt = (test::kAlignData / "lambda_targets.fa").string();
  const std::string pq = (test::kAlignData / "proteins_queries.fa").string();
  const std::string pt = (test::kAlignData / "proteins_targets.fa").string();
  const std::vector<std::string> runs{
      "align-sw " + lq + " " + lt + " --pairs --traceback",
      "align-nw " + lq + " " + lt + " --pairs --traceback --format sam",
      "align-sw " + lq + " " + lt + " --top 3 --traceback --format blast6",
      "align-nw " + pq + " " + pt + " --top 5 --traceback",
      "align-sw " + pq + " --top 2 --traceback",
  };
  for (std::size_t k = 0; k < runs.size(); ++k) {
    INFO(runs[k]);
    std::string outputs[2];
    int index = 0;
    for (const char* device : {"cpu", "gpu"}) {
      const std::filesystem::path out = dir.file(std::to_string(k) + device + ".out");
      const std::string command =
          sf.string() + " " + runs[k] + " -q --device " + device + " -o " + out.string();
      REQUIRE(std::system(command.c_str()) == 0);
      outputs[index++] = seqfuse::test::slurp(out);
    }
    // SAM's @PG line holds the command line, which names the device.
    for (std::string& text : outputs) {
      const std::size_t pg = text.find("@PG\t");
      if (pg != std::string::npos) text.erase(pg, text.find('\n', pg) - pg);
    }
    CHECK(!outputs[0].empty());
    CHECK(outputs[0] == outputs[1]);
  }
}

TEST_CASE(
    "GPU search with the targets in parts equals --device cpu (a set too large for the device)",
    "[gpu][align][traceback]") {
  const ScoringScheme scheme = ScoringScheme::builtin("blosum62", {11, 1});
  seqfuse::align::EncodedSequences q(scheme), t(scheme);
  for (const auto& r : test::read_fasta(test::kAlignData / "proteins_queries.fa"))
    q.append(r.sequence, r.name);
  // Every target twice, the copies in different parts: equal scores there
  // must still come out in target order.
  const auto targets = test::read_fasta(test::kAlignData / "proteins_targets.fa");
  for (int copy = 0; copy < 2; ++copy)
    for (const auto& r : targets) t.append(r.sequence, r.name);
  const std::uint64_t residues = t.flat_codes().size();
  for (const AlignMode mode : {AlignMode::local, AlignMode::global})
    for (const auto layout :
         {seqfuse::align::PairLayout::search, seqfuse::align::PairLayout::all_vs_all})
      for (const std::size_t top : {std::size_t{0}, std::size_t{3}})
        for (const bool traceback : {false, true}) {
          seqfuse::align::AlignJob job;
          job.mode = mode;
          job.layout = layout;
          job.top = top;
          job.traceback = traceback;
          job.threads = 2;
          const auto cpu = run_job(job, scheme, q, t);
          job.gpu = true;
          // One target per part, then three parts.
          for (const std::uint64_t part : {std::uint64_t{1}, residues / 3}) {
            INFO(seqfuse::align::mode_name(mode)
                 << " layout " << static_cast<int>(layout) << " top " << top << " traceback "
                 << traceback << " part residues " << part);
            job.gpu_part_residues = part;
            const auto on_gpu = run_job(job, scheme, q, t);
            REQUIRE(cpu.size() == on_gpu.size());
            for (std::size_t k = 0; k < cpu.size(); ++k) REQUIRE(on_gpu[k] == cpu[k]);
          }
        }
}
