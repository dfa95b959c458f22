// The hits a GPU search keeps when its target set is scored in parts
// (top_hits.hpp): merged part by part they must equal the hits picked from
// the whole row at once, ties in target order, for search and all against
// all; and the parts must cover the set in order within their budget.
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "align/top_hits.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
using seqfuse::align::test::test_seed;

namespace {

std::vector<ScoredTarget> whole_row_top(const std::vector<seqfuse::gpu::PairScore>& row,
                                        std::size_t skip, std::size_t top) {
  std::vector<std::uint32_t> picked;
  select_top(row, skip, top, picked);
  std::vector<ScoredTarget> out;
  for (std::uint32_t k : picked) out.push_back({k, row[k]});
  return out;
}

}  // namespace

TEST_CASE("hits merged part by part equal the whole row's, ties in target order", "[align]") {
  std::mt19937_64 random(test_seed());
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t targets = std::uniform_int_distribution<std::size_t>(0, 200)(random);
    // Few distinct scores: many ties, some spanning parts.
    std::uniform_int_distribution<int> score(0, trial % 2 == 0 ? 3 : 1000);
    std::vector<seqfuse::gpu::PairScore> row(targets);
    for (std::size_t k = 0; k < targets; ++k)
      row[k] = {score(random), static_cast<std::int32_t>(k % 7), static_cast<std::int32_t>(k)};
    const std::size_t top = std::vector<std::size_t>{0, 1, 3, 10, 500}[trial % 5];
    // All against all leaves out the query's own index (in or past the row).
    const std::size_t skip =
        trial % 3 == 0 ? std::uniform_int_distribution<std::size_t>(0, targets + 2)(random)
                       : kNoSkip;

    std::vector<std::uint64_t> offsets{0};
    std::uniform_int_distribution<std::uint64_t> length(0, 30);
    for (std::size_t k = 0; k < targets; ++k) offsets.push_back(offsets.back() + length(random));
    const std::uint64_t budget = std::uniform_int_distribution<std::uint64_t>(1, 400)(random);
    const std::vector<TargetRange> parts = plan_target_parts(offsets, budget);

    std::vector<ScoredTarget> kept;
    for (const TargetRange& part : parts)
      keep_top_of_part(std::span(row).subspan(part.begin, part.size()), part, skip, top, kept);
    const std::vector<ScoredTarget> expected = whole_row_top(row, skip, top);
    INFO("trial " << trial << ", " << targets << " targets in " << parts.size() << " parts, top "
                  << top << ", skip " << skip);
    REQUIRE(kept.size() == expected.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      CHECK(kept[k].target == expected[k].target);
      CHECK(kept[k].score.score == expected[k].score.score);
      CHECK(kept[k].score.target_end == expected[k].score.target_end);
    }
  }
}

TEST_CASE("target parts cover the set in order, within the residue budget", "[align]") {
  std::mt19937_64 random(test_seed());
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t targets = std::uniform_int_distribution<std::size_t>(0, 100)(random);
    std::vector<std::uint64_t> offsets{0};
    std::uniform_int_distribution<std::uint64_t> length(0, 50);
    for (std::size_t k = 0; k < targets; ++k) offsets.push_back(offsets.back() + length(random));
    const std::uint64_t budget = std::uniform_int_distribution<std::uint64_t>(1, 300)(random);
    const std::vector<TargetRange> parts = plan_target_parts(offsets, budget);
    std::uint32_t next = 0;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const TargetRange& part = parts[p];
      REQUIRE(part.begin == next);
      REQUIRE(part.end > part.begin);
      const std::uint64_t residues = offsets[part.end] - offsets[part.begin];
      // Over budget only as a single target; otherwise as full as it can be.
      if (residues > budget) CHECK(part.size() == 1);
      if (part.end < targets) CHECK(offsets[part.end + 1] - offsets[part.begin] > budget);
      next = part.end;
    }
    CHECK(next == targets);
  }
  const std::vector<std::uint64_t> offsets{0, 10, 1010, 1020};
  const auto parts = plan_target_parts(offsets, 100);  // the middle target alone exceeds it
  REQUIRE(parts.size() == 3);
  CHECK(parts[1].begin == 1);
  CHECK(parts[1].end == 2);
  CHECK(plan_target_parts(std::vector<std::uint64_t>{0}, 100).empty());
  CHECK(plan_target_parts(offsets, 1u << 30).size() == 1);
}
