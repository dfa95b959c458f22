// Host-side costs on the GPU search's critical path, timed on whatever
// machine runs them (hidden: seqfuse_tests '[align-bench]'):
// - the target layout of a big search's part (1.1 M targets), by counting
//   sort and, with one target of 2^20 letters added, by the keys' sort;
// - a fresh 120 MB buffer (the 500 x 20,000 search's scores), whose pages
//   fault in on first touch: why score() sizes its output after the first
//   launch is queued.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "gpu/align/pair_score.hpp"
#include "gpu/align/search16_dp.hpp"

namespace {

template <class Run>
double best_ms(Run&& run) {
  double best = 1e300;
  for (int k = 0; k < 5; ++k) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

}  // namespace

TEST_CASE("host costs before a GPU search's first launch", "[.][align-bench]") {
  namespace s16 = seqfuse::gpu::search16;
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> protein(5.8, 0.6);  // mean ~400 residues
  std::vector<std::uint64_t> offsets{0};
  for (int k = 0; k < 1'100'000; ++k)
    offsets.push_back(offsets.back() + std::max<std::uint64_t>(1, std::uint64_t(protein(rng))));
  std::vector<std::uint64_t> with_giant = offsets;
  with_giant.push_back(with_giant.back() + (std::uint64_t{1} << 20));
  std::size_t slots = 0;
  const double counting = best_ms([&] { slots += s16::plan_target_layout(offsets).order.size(); });
  const double keys = best_ms([&] { slots += s16::plan_target_layout(with_giant).order.size(); });
  CHECK(slots > 0);
  const double fresh = best_ms([] {
    std::vector<seqfuse::gpu::PairScore> scores(10'000'000);
    CHECK(scores.back().score == 0);
  });
  std::cout << "target layout of 1.1 M targets: counting sort " << counting << " ms, keys' sort "
            << keys << " ms; a fresh 120 MB score buffer: " << fresh << " ms (best of 5)\n";
}
