// The CPU engine against the scalar reference, on randomized inputs with a
// fresh seed each run: every built-in matrix and the DNA scheme, several gap
// pairs, lengths 0, 1, 2 up to thousands, every SIMD level this machine has,
// 16-bit overflow, threads, search ranking and traceback.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "align/cigar.hpp"
#include "align/cpu_engine.hpp"
#include "align/reference.hpp"
#include "align/scoring.hpp"
#include "core/error.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
using seqfuse::align::test::encode;
using seqfuse::align::test::RandomSequences;
using seqfuse::align::test::test_seed;

namespace {

std::vector<SimdLevel> available_levels() {
  std::vector<SimdLevel> levels;
  for (SimdLevel level : {SimdLevel::avx2, SimdLevel::sse41, SimdLevel::scalar}) {
    if (simd_level_supported(level)) levels.push_back(level);
  }
  return levels;
}

struct PairSet {
  std::vector<std::vector<std::uint8_t>> queries;
  std::vector<std::vector<std::uint8_t>> targets;
  std::vector<Codes> query_views() const { return {queries.begin(), queries.end()}; }
  std::vector<Codes> target_views() const { return {targets.begin(), targets.end()}; }
};

// Lengths that matter to striped kernels: empty, shorter than a vector, exact
// multiples of the lane counts and one off them, then longer ones.
std::size_t pick_length(RandomSequences& random, int trial) {
  static constexpr std::size_t kEdges[] = {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64};
  if (trial < static_cast<int>(std::size(kEdges))) return kEdges[trial];
  return static_cast<std::size_t>(random.uniform(1, trial % 4 == 0 ? 900 : 250));
}

PairSet random_pairs(RandomSequences& random, const ScoringScheme& scheme,
                     const std::string& letters, int count) {
  PairSet set;
  for (int trial = 0; trial < count; ++trial) {
    const std::size_t length = pick_length(random, trial);
    const std::string q = random.random(letters, length);
    std::string t;
    switch (trial % 3) {
      case 0:  // related: substitutions and indels
        t = random.mutate(q, letters, 0.15);
        break;
      case 1:  // unrelated, different length
        t = random.random(letters,
                          static_cast<std::size_t>(random.uniform(0, 2 * int(length) + 2)));
        break;
      default:  // a piece of q inside random flanks
        t = random.random(letters, 20) + q.substr(length / 3, length / 2) +
            random.random(letters, 5);
    }
    set.queries.push_back(encode(scheme, q));
    set.targets.push_back(encode(scheme, t));
  }
  return set;
}

void require_same(const AlignResult& got, const AlignResult& expected) {
  CHECK(got.score == expected.score);
  CHECK(got.query_end == expected.query_end);
  CHECK(got.target_end == expected.target_end);
}

}  // namespace

TEST_CASE("engine equals the reference for every matrix, gap pair and SIMD level", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed << " (SEQFUSE_TEST_SEED=" << seed << " replays)");
  RandomSequences random(seed);
  const GapPenalties gap_pairs[] = {{11, 1}, {10, 2}, {5, 2}, {1, 1}};
  const std::vector<SimdLevel> levels = available_levels();
  for (const auto& scheme_case : test::all_scheme_cases()) {
    for (GapPenalties gaps : gap_pairs) {
      const ScoringScheme scheme = test::make_scheme(scheme_case, gaps);
      const PairSet pairs = random_pairs(random, scheme, scheme_case.letters, 24);
      const auto queries = pairs.query_views();
      const auto targets = pairs.target_views();
      for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        std::vector<AlignResult> expected;
        for (std::size_t k = 0; k < queries.size(); ++k) {
          expected.push_back(reference_score(mode, scheme, queries[k], targets[k]));
        }
        for (SimdLevel level : levels) {
          CpuEngine engine(scheme, mode, {.threads = 2, .simd = level});
          std::vector<AlignResult> got(queries.size());
          engine.align_pairs(queries, targets, got);
          for (std::size_t k = 0; k < got.size(); ++k) {
            INFO(scheme.name() << " gaps " << gaps.open << "/" << gaps.extend << " "
                               << mode_name(mode) << " " << simd_level_name(level) << " pair " << k
                               << " lengths " << queries[k].size() << " x " << targets[k].size());
            require_same(got[k], expected[k]);
          }
        }
      }
    }
  }
}

TEST_CASE("engine equals the reference on long pairs", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed << " (SEQFUSE_TEST_SEED=" << seed << " replays)");
  RandomSequences random(seed);
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  struct Long {
    const ScoringScheme* scheme;
    std::string letters;
    std::size_t length;
  };
  const Long cases[] = {{&b62, "ACDEFGHIKLMNPQRSTVWY", 2500},
                        {&b62, "ACDEFGHIKLMNPQRSTVWY", 3001},
                        {&dna, "ACGT", 10000}};
  for (const Long& c : cases) {
    const std::string q = random.random(c.letters, c.length);
    const auto qc = encode(*c.scheme, q);
    const auto tc = encode(*c.scheme, random.mutate(q, c.letters, 0.1));
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
      INFO(c.scheme->name() << " " << mode_name(mode) << " length " << c.length);
      const AlignResult expected = reference_score(mode, *c.scheme, qc, tc);
      for (SimdLevel level : available_levels()) {
        INFO(simd_level_name(level));
        require_same(CpuEngine(*c.scheme, mode, {.simd = level}).align(qc, tc), expected);
      }
    }
  }
}

TEST_CASE("a global query far longer than its target is scored the other way round", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed << " (SEQFUSE_TEST_SEED=" << seed << " replays)");
  RandomSequences random(seed);
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  // Above the engine's swap threshold (65,536) and over 4 times each target.
  const std::string q = random.random(letters, 70'000);
  const auto qc = encode(b62, q);
  for (const std::size_t length : {std::size_t{1}, std::size_t{17}, std::size_t{300}}) {
    const auto tc = encode(b62, q.substr(1000, length));
    INFO("target length " << length);
    const AlignResult expected = reference_score(AlignMode::global, b62, qc, tc);
    for (SimdLevel level : available_levels()) {
      INFO(simd_level_name(level));
      const AlignResult got = CpuEngine(b62, AlignMode::global, {.simd = level}).align(qc, tc);
      require_same(got, expected);
      CHECK(got.query_end == 69'999);
      CHECK(got.target_end == static_cast<int>(length) - 1);
    }
  }
}

TEST_CASE("engine falls back to 32-bit lanes when 16 bits would overflow", "[align]") {
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  // Self-alignment scores around INT16_MAX: W scores 11, A 4, G 6.
  const std::string w2977(2977, 'W');
  const std::string w2978(2978, 'W');
  const std::pair<std::string, int> boundary[] = {
      {w2978 + "AA", 32766},            // fits
      {w2977 + "AAAAA", 32767},         // INT16_MAX itself: ambiguous, must be redone
      {w2978 + "AG", 32768},            // one past
      {std::string(4000, 'W'), 44000},  // far past
  };
  for (SimdLevel level : available_levels()) {
    INFO(simd_level_name(level));
    for (const auto& [seq, self_score] : boundary) {
      INFO("self score " << self_score);
      const auto codes = encode(b62, seq);
      CpuEngine local(b62, AlignMode::local, {.simd = level});
      const AlignResult r = local.align(codes, codes);
      CHECK(r.score == self_score);
      CHECK(r.query_end == int(seq.size()) - 1);
      CHECK(r.target_end == int(seq.size()) - 1);
      if (level != SimdLevel::scalar) {
        CHECK(local.counters().widened_to_32 == (self_score >= 32767 ? 1U : 0U));
      }
      CpuEngine global(b62, AlignMode::global, {.simd = level});
      CHECK(global.align(codes, codes).score == self_score);
    }
  }
  // Random high-scoring pairs past the limit, local and global, checked against the reference.
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed);
  RandomSequences random(seed);
  const std::string q = random.random("WCWCWHY", 4200);
  const auto qc = encode(b62, q);
  const auto tc = encode(b62, random.mutate(q, "WCWCWHY", 0.03));
  for (AlignMode mode : {AlignMode::local, AlignMode::global}) {
    const AlignResult expected = reference_score(mode, b62, qc, tc);
    REQUIRE(expected.score > 32767);
    for (SimdLevel level : available_levels()) {
      INFO(mode_name(mode) << " " << simd_level_name(level));
      CpuEngine engine(b62, mode, {.simd = level});
      require_same(engine.align(qc, tc), expected);
      if (level != SimdLevel::scalar) {
        const EngineCounters counters = engine.counters();
        CHECK(counters.widened_to_32 + counters.started_at_32 == 1);
      }
    }
  }
  // Global pairs whose negative range does not fit 16 bits (long, different lengths).
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const auto long_dna = encode(dna, random.random("ACGT", 20000));
  const auto short_dna = encode(dna, random.random("ACGT", 300));
  const AlignResult expected = reference_score(AlignMode::global, dna, long_dna, short_dna);
  CHECK(expected.score < -32768);
  for (SimdLevel level : available_levels()) {
    INFO(simd_level_name(level));
    require_same(CpuEngine(dna, AlignMode::global, {.simd = level}).align(long_dna, short_dna),
                 expected);
  }
}

TEST_CASE("local scores around 127 leave the 8-bit lanes exact or rescored", "[align]") {
  // Self-alignments scoring 124 to 130 (W scores 11, A 4, G 6) and random
  // pairs whose scores cross the 8-bit limit, every SIMD level, against the
  // reference: the 8-bit kernels must hand a score of 127 or more to the
  // 16-bit ones, whose results are exact.
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  const std::pair<std::string, int> boundary[] = {
      {"WWWWWWWWWWAAAAAA", 134}, {"WWWWWWWWWWAAGG", 130}, {"WWWWWWWWWWAAAG", 128},
      {"WWWWWWWWWWAAAAA", 130},  {"WWWWWWWWWWAAA", 122},  {"WWWWWWWWWAAAAAAAG", 133},
      {"WWWWWWWWWWWAAAA", 137},  {"WWWWWWWWWWWA", 125},   {"WWWWWWWWWWWG", 127},
      {"WWWWWWWWWWWAG", 131},
  };
  for (SimdLevel level : available_levels()) {
    INFO(simd_level_name(level));
    for (const auto& [seq, self_score] : boundary) {
      INFO(seq);
      const auto codes = encode(b62, seq);
      const AlignResult expected = reference_score(AlignMode::local, b62, codes, codes);
      REQUIRE(expected.score == self_score);
      require_same(CpuEngine(b62, AlignMode::local, {.simd = level}).align(codes, codes), expected);
    }
  }
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed);
  RandomSequences random(seed);
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  int crossed = 0;
  for (int k = 0; k < 300; ++k) {
    const std::string q = random.random("ACGT", std::size_t(random.uniform(40, 90)));
    const auto qc = encode(dna, q);
    const auto tc = encode(dna, random.mutate(q, "ACGT", 0.05));
    const AlignResult expected = reference_score(AlignMode::local, dna, qc, tc);
    crossed += expected.score >= 127;
    for (SimdLevel level : available_levels()) {
      INFO(simd_level_name(level) << " pair " << k);
      require_same(CpuEngine(dna, AlignMode::local, {.simd = level}).align(qc, tc), expected);
    }
  }
  CHECK(crossed > 20);  // the limit was crossed often enough to matter
}

TEST_CASE("engine handles all-N DNA, IUPAC codes and lowercase", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed);
  RandomSequences random(seed);
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  const auto zero = ScoringScheme::match_mismatch(2, -3, {5, 2}, AmbiguousBases::zero);
  const std::string all_n(300, 'N');
  const std::string mixed = random.random("ACGTNRYSWKMBDHVacgtn", 400);
  std::string upper = mixed;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const ScoringScheme* scheme : {&dna, &zero}) {
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
      for (SimdLevel level : available_levels()) {
        INFO(scheme->name() << " " << mode_name(mode) << " " << simd_level_name(level));
        CpuEngine engine(*scheme, mode, {.simd = level});
        const auto n_codes = encode(*scheme, all_n);
        const AlignResult n_vs_n = engine.align(n_codes, n_codes);
        require_same(n_vs_n, reference_score(mode, *scheme, n_codes, n_codes));
        if (scheme == &dna) CHECK(n_vs_n.score == (mode == AlignMode::local ? 0 : -900));
        if (scheme == &zero) CHECK(n_vs_n.score == 0);
        const auto m_codes = encode(*scheme, mixed);
        CHECK(m_codes == encode(*scheme, upper));
        require_same(engine.align(m_codes, n_codes),
                     reference_score(mode, *scheme, m_codes, n_codes));
        const auto plain = encode(*scheme, random.mutate(upper, "ACGT", 0.1));
        require_same(engine.align(m_codes, plain), reference_score(mode, *scheme, m_codes, plain));
      }
    }
  }
}

TEST_CASE("engine results do not depend on thread count or pair order", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed);
  RandomSequences random(seed);
  const auto scheme = ScoringScheme::builtin("blosum50", {10, 2});
  const PairSet pairs = random_pairs(random, scheme, "ACDEFGHIKLMNPQRSTVWYBZX*", 60);
  const auto queries = pairs.query_views();
  const auto targets = pairs.target_views();
  std::vector<PairIndex> index;
  for (std::uint32_t k = 0; k < queries.size(); ++k) index.push_back({k, (k * 7) % 60});
  for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
    std::vector<AlignResult> one(index.size());
    CpuEngine(scheme, mode, {.threads = 1}).align_pairs(queries, targets, index, one);
    for (unsigned threads : {2U, 3U, 8U}) {
      std::vector<AlignResult> many(index.size());
      CpuEngine engine(scheme, mode, {.threads = threads});
      engine.align_pairs(queries, targets, index, many);
      CHECK(engine.counters().pairs == index.size());
      for (std::size_t k = 0; k < index.size(); ++k) {
        INFO(mode_name(mode) << " threads " << threads << " pair " << k);
        require_same(many[k], one[k]);
        require_same(one[k], reference_score(mode, scheme, queries[index[k].query],
                                             targets[index[k].target]));
      }
    }
  }
  std::vector<AlignResult> out(2);
  const std::vector<PairIndex> bad{{0, 0}, {0, 99}};
  CHECK_THROWS(CpuEngine(scheme, AlignMode::local).align_pairs(queries, targets, bad, out));
}

TEST_CASE("search keeps the top hits per query, equal scores in target order", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed);
  RandomSequences random(seed);
  const auto scheme = ScoringScheme::builtin("blosum62", {11, 1});
  const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  std::vector<std::vector<std::uint8_t>> query_codes, target_codes;
  for (int k = 0; k < 7; ++k) {
    query_codes.push_back(
        encode(scheme, random.random(letters, std::size_t(random.uniform(1, 300)))));
  }
  for (int k = 0; k < 40; ++k) {
    if (k % 5 == 4) {  // duplicates make ties
      std::vector<std::uint8_t> copy = target_codes[std::size_t(k - 3)];
      target_codes.push_back(std::move(copy));
    } else if (k % 3 == 0) {
      const auto& q = query_codes[std::size_t(k) % query_codes.size()];
      target_codes.push_back(q);
    } else {
      target_codes.push_back(
          encode(scheme, random.random(letters, std::size_t(random.uniform(0, 400)))));
    }
  }
  const std::vector<Codes> queries(query_codes.begin(), query_codes.end());
  const std::vector<Codes> targets(target_codes.begin(), target_codes.end());
  for (AlignMode mode : {AlignMode::local, AlignMode::global}) {
    for (std::size_t top_n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{100}}) {
      for (unsigned threads : {1U, 3U}) {
        INFO(mode_name(mode) << " top " << top_n << " threads " << threads);
        CpuEngine engine(scheme, mode, {.threads = threads});
        const auto hits = engine.search(queries, targets, top_n);
        REQUIRE(hits.size() == queries.size());
        for (std::size_t q = 0; q < queries.size(); ++q) {
          std::vector<SearchHit> all;
          for (std::uint32_t t = 0; t < targets.size(); ++t) {
            all.push_back({t, reference_score(mode, scheme, queries[q], targets[t])});
          }
          std::stable_sort(all.begin(), all.end(), [](const SearchHit& a, const SearchHit& b) {
            return a.result.score > b.result.score;
          });
          const std::size_t kept = top_n == 0 ? all.size() : std::min(top_n, all.size());
          REQUIRE(hits[q].size() == kept);
          for (std::size_t k = 0; k < kept; ++k) {
            CHECK(hits[q][k].target == all[k].target);
            require_same(hits[q][k].result, all[k].result);
          }
        }
      }
    }
  }
  CHECK(CpuEngine(scheme, AlignMode::local).search({}, targets, 3).empty());
  CHECK(CpuEngine(scheme, AlignMode::local).search(queries, {}, 3)[0].empty());
}

TEST_CASE("engine traceback matches score-only results and re-scores", "[align]") {
  const std::uint64_t seed = test_seed();
  INFO("seed " << seed);
  RandomSequences random(seed);
  for (const auto& scheme_case : test::all_scheme_cases()) {
    const ScoringScheme scheme = test::make_scheme(scheme_case, {10, 2});
    const PairSet pairs = random_pairs(random, scheme, scheme_case.letters, 20);
    const auto queries = pairs.query_views();
    const auto targets = pairs.target_views();
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
      std::vector<AlignResult> fast(queries.size()), full(queries.size());
      CpuEngine(scheme, mode, {.threads = 2}).align_pairs(queries, targets, fast);
      CpuEngine(scheme, mode, {.threads = 2, .traceback = true})
          .align_pairs(queries, targets, full);
      for (std::size_t k = 0; k < queries.size(); ++k) {
        INFO(scheme.name() << " " << mode_name(mode) << " pair " << k);
        CHECK_FALSE(fast[k].traced);
        CHECK(full[k].traced);
        require_same(full[k], fast[k]);
        const Rescore rescored = rescore_alignment(mode, scheme, queries[k], targets[k], full[k]);
        CHECK(rescored.problem == "");
        CHECK(rescored.score == full[k].score);
      }
      CpuEngine tracing(scheme, mode, {.threads = 2, .traceback = true});
      const auto hits = tracing.search(queries, targets, 3);
      for (std::size_t q = 0; q < hits.size(); ++q) {
        for (const SearchHit& hit : hits[q]) {
          CHECK(hit.result.traced);
          CHECK(
              rescore_alignment(mode, scheme, queries[q], targets[hit.target], hit.result).score ==
              hit.result.score);
        }
      }
    }
  }
}

TEST_CASE("engine refuses SIMD levels this machine lacks", "[align]") {
  const auto scheme = ScoringScheme::builtin("blosum62", {11, 1});
  CHECK(CpuEngine(scheme, AlignMode::local).simd_level() == best_simd_level());
  CHECK(CpuEngine(scheme, AlignMode::local, {.simd = SimdLevel::scalar}).simd_level() ==
        SimdLevel::scalar);
  for (SimdLevel level : {SimdLevel::avx2, SimdLevel::sse41}) {
    if (!simd_level_supported(level)) {
      CHECK_THROWS_AS(CpuEngine(scheme, AlignMode::local, {.simd = level}), seqfuse::UsageError);
    }
  }
}
