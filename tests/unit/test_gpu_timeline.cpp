// covered_seconds, the union of timed spans behind a search's device time
// (gpu/timeline.hpp): overlapping spans (two parts' kernels on two
// streams) count once, gaps not at all.
#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "gpu/timeline.hpp"

using seqfuse::gpu::covered_seconds;
using Spans = std::vector<std::pair<double, double>>;

TEST_CASE("covered_seconds is the length of the spans' union", "[timeline]") {
  CHECK(covered_seconds({}) == 0);
  CHECK(covered_seconds(Spans{{1, 3}}) == Approx(2));
  // Disjoint, in any order: gaps do not count.
  CHECK(covered_seconds(Spans{{5, 6}, {1, 2}}) == Approx(2));
  // Overlapping and nested: counted once.
  CHECK(covered_seconds(Spans{{0, 4}, {1, 2}, {3, 6}}) == Approx(6));
  CHECK(covered_seconds(Spans{{2, 3}, {0, 10}}) == Approx(10));
  // Touching spans join; empty or reversed ones add nothing.
  CHECK(covered_seconds(Spans{{0, 1}, {1, 2}, {5, 5}, {7, 6}}) == Approx(2));
}
