// The long targets' wavefront kernel (score_db_long.cu) run on the CPU: the
// 32 lanes of a pair step by step, each lane's column sweep being
// wavefront_dp.hpp's sweep_column (the code the kernel runs), the shuffles
// from the lane above stood in for by reading that lane's values of the
// previous step (lanes are visited last first), the pass edges in a poisoned
// buffer, and the kernel's reduction of the lanes' results. Every pair must
// equal reference_score, score and end cell. CI runs it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "align/gpu_params.hpp"
#include "align/reference.hpp"
#include "gpu/align/pair_dp.hpp"
#include "gpu/align/score_pairs.hpp"
#include "gpu/align/wavefront_dp.hpp"
#include "test_align_support.hpp"

namespace {

using seqfuse::align::AlignMode;
using seqfuse::align::AlignResult;
using seqfuse::align::Codes;
using seqfuse::align::ScoringScheme;
namespace gpu = seqfuse::gpu;
namespace wf = seqfuse::gpu::wavefront;
namespace test = seqfuse::align::test;
using MaxPlus = seqfuse::align::pairs::PortableMaxPlus;

template <bool kLocal>
gpu::PairScore emulate_pair(const std::vector<int>& table, Codes query, Codes target, int open,
                            int extend) {
  const int m = static_cast<int>(query.size());
  const int n = static_cast<int>(target.size());
  if (m == 0 || n == 0) return wf::empty_pair(kLocal, m, n, open, extend);
  std::array<wf::Lane, wf::kLanes> lanes;
  std::array<int, wf::kLanes> letters{};
  // Fresh device memory holds anything.
  std::vector<gpu::EdgeHF> edge(static_cast<std::size_t>(n), gpu::EdgeHF{-12345, 54321});
  for (int p0 = 0; p0 < m; p0 += wf::kPassRows) {
    for (int k = 0; k < wf::kLanes; ++k)
      wf::begin_pass<kLocal, MaxPlus>(lanes[k], query.data(), m, p0 + k * wf::kLaneRows, open,
                                      extend);
    const bool from_edge = p0 > 0;
    const bool to_edge = p0 + wf::kPassRows < m;
    const int steps = n + wf::active_lanes(m, p0) - 1;
    for (int s = 0; s < steps; ++s) {
      for (int k = wf::kLanes - 1; k >= 0; --k) {
        int up_h, up_f;
        if (k == 0) {
          letters[0] = s < n ? target[static_cast<std::size_t>(s)] : 0;
          const gpu::EdgeHF e =
              s < n && from_edge ? edge[static_cast<std::size_t>(s)] : gpu::EdgeHF{0, wf::kNegInf};
          up_h = from_edge ? e.h : kLocal ? 0 : wf::minus_gap(s + 1, open, extend);
          up_f = from_edge ? e.f : wf::kNegInf;
        } else {
          letters[k] = letters[k - 1];
          up_h = lanes[k - 1].bottom_h;
          up_f = lanes[k - 1].bottom_f;
        }
        const int j = s - k;
        if (j < 0 || j >= n || lanes[k].i0 >= m) continue;
        wf::sweep_column<kLocal, MaxPlus>(lanes[k], j, letters[k], up_h, up_f, table.data(), open,
                                          extend, m, n);
        if (to_edge && k == wf::kLanes - 1)
          edge[static_cast<std::size_t>(j)] = gpu::EdgeHF{lanes[k].bottom_h, lanes[k].bottom_f};
      }
    }
  }
  if (!kLocal) {
    const int holder = ((m - 1) % wf::kPassRows) / wf::kLaneRows;
    return gpu::PairScore{lanes[holder].last_h, m - 1, n - 1};
  }
  // The kernel's butterfly reduction keeps the first by local_first; any
  // order of folding gives the same minimum.
  int best = lanes[0].best, best_i = lanes[0].best_i, best_j = lanes[0].best_j;
  for (int k = 1; k < wf::kLanes; ++k)
    if (wf::local_first(lanes[k].best, lanes[k].best_i, lanes[k].best_j, best, best_i, best_j)) {
      best = lanes[k].best;
      best_i = lanes[k].best_i;
      best_j = lanes[k].best_j;
    }
  return wf::finish_local(best, best_i, best_j);
}

void require_equal_to_reference(const ScoringScheme& scheme, AlignMode mode,
                                const test::FlatCodes& queries, const test::FlatCodes& targets) {
  const gpu::ScoreParams params = seqfuse::align::gpu_score_params(scheme, mode);
  // The layout load_search_table gives the kernel.
  const std::vector<int> table = gpu::pair_table(params.matrix, params.alphabet_size);
  CHECK(test::count_unlike_reference(
            mode, scheme, queries, targets, [&](std::size_t q, std::size_t t) {
              return mode == AlignMode::local
                         ? emulate_pair<true>(table, queries[q], targets[t], params.gap_open,
                                              params.gap_extend)
                         : emulate_pair<false>(table, queries[q], targets[t], params.gap_open,
                                               params.gap_extend);
            }) == 0);
}

}  // namespace

TEST_CASE("emulated wavefront search kernel equals reference_score on random inputs",
          "[align][wavefront]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  test::for_each_scoring(
      [&](const test::SchemeCase& scheme_case, const ScoringScheme& scheme, AlignMode mode) {
        const std::string& letters = scheme_case.letters;
        test::FlatCodes queries, targets;
        // Lanes partly and wholly past the end, one lane, a full pass.
        for (int len : {0, 1, 15, 16, 17, rng.uniform(40, 200)})
          queries.add(test::encode(scheme, rng.random(letters, static_cast<std::size_t>(len))));
        const std::string related = rng.random(letters, 150);
        queries.add(test::encode(scheme, related));
        // Targets shorter and longer than the 32 lanes' pipeline.
        for (int len : {0, 1, 2, 31, 33, rng.uniform(50, 160)})
          targets.add(test::encode(scheme, rng.random(letters, static_cast<std::size_t>(len))));
        targets.add(test::encode(scheme, rng.mutate(related, letters, 0.15)));
        targets.add(test::encode(scheme, std::string(40, letters[0])));  // ties everywhere
        require_equal_to_reference(scheme, mode, queries, targets);
      });
}

TEST_CASE("emulated wavefront search kernel: several passes and their edges",
          "[align][wavefront]") {
  const std::uint64_t seed = test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  test::RandomSequences rng(seed);
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  const ScoringScheme blosum62 = ScoringScheme::builtin("blosum62", {11, 1});
  const ScoringScheme dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
    INFO(seqfuse::align::mode_name(mode));
    test::FlatCodes queries, targets;
    const std::string base = rng.random(amino, 1300);
    // Pass boundaries: 511, 512, 513 rows, three passes, a related pair
    // whose best cell lies in a later pass.
    for (int len : {511, 512, 513, 1100})
      queries.add(test::encode(blosum62, rng.random(amino, static_cast<std::size_t>(len))));
    queries.add(test::encode(blosum62, base));
    targets.add(test::encode(blosum62, rng.mutate(base.substr(600, 500), amino, 0.1)));
    targets.add(test::encode(blosum62, rng.random(amino, 700)));
    targets.add(test::encode(blosum62, rng.random(amino, 20)));
    require_equal_to_reference(blosum62, mode, queries, targets);

    test::FlatCodes dq, dt;
    const std::string d = rng.random("ACGT", 1200);
    dq.add(test::encode(dna, d));
    dt.add(test::encode(dna, rng.mutate(d, "ACGTN", 0.05)));
    dt.add(test::encode(dna, std::string(600, 'N')));
    require_equal_to_reference(dna, mode, dq, dt);
  }
}
