// Throughput of the CPU engine, hidden from normal runs ([.] tag):
//   SEQFUSE_ALIGN_BENCH_QUERIES=q.fa SEQFUSE_ALIGN_BENCH_TARGETS=t.fa
//   SEQFUSE_ALIGN_BENCH_THREADS=2 seqfuse_tests '[align-bench]'
// Without the variables it runs on the small protein fixtures. Prints GCUPS
// for every SIMD level, for search (query profile reused over all targets)
// and for pairs (every query x target as a pair list: one profile per pair).
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "align/cpu_engine.hpp"
#include "align/scoring.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// CPU seconds of this process (all threads): on a shared, loaded machine
// they show the engine's own cost better than wall time does.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

struct Timing {
  double wall = 1e300;
  double cpu = 1e300;
};

// Best wall time and best CPU time of `repeats` runs.
template <class Run>
Timing best_of(int repeats, Run&& run) {
  Timing best;
  for (int k = 0; k < repeats; ++k) {
    const double cpu_start = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best.wall = std::min(best.wall, elapsed.count());
    best.cpu = std::min(best.cpu, cpu_seconds() - cpu_start);
  }
  return best;
}

}  // namespace

TEST_CASE("CPU engine throughput", "[.][align-bench]") {
  const std::string query_path =
      env_or("SEQFUSE_ALIGN_BENCH_QUERIES", (test::kAlignData / "proteins_queries.fa").string());
  const std::string target_path =
      env_or("SEQFUSE_ALIGN_BENCH_TARGETS", (test::kAlignData / "proteins_targets.fa").string());
  const auto threads =
      static_cast<unsigned>(std::stoul(env_or("SEQFUSE_ALIGN_BENCH_THREADS", "2")));
  const int repeats = std::stoi(env_or("SEQFUSE_ALIGN_BENCH_REPEATS", "3"));
  const std::string only_mode = env_or("SEQFUSE_ALIGN_BENCH_MODE", "");  // "sw" or "nw"
  const auto scheme =
      ScoringScheme::builtin(env_or("SEQFUSE_ALIGN_BENCH_MATRIX", "blosum62"), {11, 1});
  EncodedSequences queries(scheme), targets(scheme);
  for (const auto& r : test::read_fasta(query_path)) queries.append(r.sequence, r.name);
  for (const auto& r : test::read_fasta(target_path)) targets.append(r.sequence, r.name);
  const auto query_views = queries.views();
  const auto target_views = targets.views();
  double cells = 0;
  std::vector<PairIndex> pairs;
  for (std::uint32_t q = 0; q < query_views.size(); ++q) {
    for (std::uint32_t t = 0; t < target_views.size(); ++t) {
      cells += double(query_views[q].size()) * double(target_views[t].size());
      pairs.push_back({q, t});
    }
  }
  std::cout << query_views.size() << " x " << target_views.size() << " sequences, " << cells
            << " cells, " << threads << " threads, best of " << repeats << "\n";
  for (AlignMode mode : {AlignMode::local, AlignMode::global}) {
    if (!only_mode.empty() && only_mode != mode_name(mode)) continue;
    for (SimdLevel level : {SimdLevel::avx2, SimdLevel::sse41}) {
      if (!simd_level_supported(level)) continue;
      CpuEngine engine(scheme, mode, {.threads = threads, .simd = level});
      const Timing search =
          best_of(repeats, [&] { (void)engine.search(query_views, target_views, 10); });
      std::vector<AlignResult> out(pairs.size());
      const Timing pair_list =
          best_of(repeats, [&] { engine.align_pairs(query_views, target_views, pairs, out); });
      std::cout << mode_name(mode) << " " << simd_level_name(level) << ": search "
                << cells / search.wall * 1e-9 << " GCUPS (" << search.wall << " s wall, "
                << search.cpu << " s cpu), pairs " << cells / pair_list.wall * 1e-9 << " GCUPS ("
                << pair_list.wall << " s wall, " << pair_list.cpu << " s cpu)\n";
      CHECK(engine.counters().pairs > 0);
    }
  }
}
