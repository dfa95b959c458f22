// The merge of sorted runs: sums across runs in memory and on disk, the
// saturating count limit, and its totals.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kmer/kmer_text.hpp"
#include "kmer/run_merge.hpp"
#include "kmer/run_store.hpp"
#include "test_kmer_support.hpp"

using namespace seqfuse::kmer;

namespace {

// A run from "KMER:COUNT" items, which must be ascending.
SortedRun make_run(int k, const std::vector<std::pair<std::string, std::uint32_t>>& items) {
  SortedRun run;
  run.k = k;
  for (const auto& [letters, count] : items) {
    std::uint64_t words[2] = {0, 0};
    REQUIRE(parse_kmer(letters, k, words));
    run.words.insert(run.words.end(), words, words + words_for_k(k));
    run.counts.push_back(count);
  }
  return run;
}

std::string temp_dir() {
  return std::filesystem::temp_directory_path().string();
}

}  // namespace

TEST_CASE("counts of equal k-mers are summed across memory and spilled runs", "[kmer]") {
  for (int k : {3, 40}) {
    INFO("k=" << k);
    const std::string a(static_cast<std::size_t>(k), 'A');
    const std::string c(static_cast<std::size_t>(k), 'C');
    const std::string g = std::string(static_cast<std::size_t>(k) - 1, 'A') + "G";
    for (std::size_t cap : {std::size_t{1} << 20, std::size_t{0}, std::size_t{40}}) {
      INFO("memory cap " << cap);
      RunStore store(k, cap, temp_dir());
      store.take(make_run(k, {{a, 1}, {c, 2}}));
      store.take(make_run(k, {{a, 10}, {g, 5}}));
      store.take(make_run(k, {{g, 1}}));
      store.take(make_run(k, {}));  // empty runs are dropped
      CHECK(store.run_count() == 3);
      MergeTotals totals;
      CHECK(test::merged_letters(store, &totals, 13) ==
            test::LetterCounts{{a, 11}, {g, 6}, {c, 2}});
      CHECK(totals.total_kmers == 19);
      CHECK(totals.distinct == 3);
      CHECK(totals.saturated == 0);
    }
  }
}

TEST_CASE("a count that would pass 4294967295 stays at it and is reported", "[kmer]") {
  constexpr std::uint32_t kMax = 4294967295u;
  for (std::size_t cap : {std::size_t{1} << 20, std::size_t{0}}) {
    RunStore store(4, cap, temp_dir());
    store.take(make_run(4, {{"AAAA", kMax - 1}, {"ACCA", kMax}, {"CCCC", 7}, {"GGGG", 3}}));
    store.take(make_run(4, {{"AAAA", 1}, {"CCCC", kMax - 2}, {"GGGG", kMax}}));
    store.take(make_run(4, {{"AAAA", 1}, {"CCCC", 1}, {"GGGG", kMax}}));
    MergeTotals totals;
    CHECK(test::merged_letters(store, &totals) ==
          test::LetterCounts{{"AAAA", kMax}, {"ACCA", kMax}, {"CCCC", kMax}, {"GGGG", kMax}});
    CHECK(totals.saturated == 4);  // ACCA reaches the limit exactly: also reported
    CHECK(totals.total_kmers == std::uint64_t{kMax} * 5 + 10);  // 64-bit sums, never wrapped
  }
  // One run alone (the pass-through path) reports its limit counts too.
  RunStore single(4, 1 << 20, temp_dir());
  single.take(make_run(4, {{"AAAA", kMax}, {"CCCC", 2}}));
  MergeTotals totals;
  CHECK(test::merged_letters(single, &totals).size() == 2);
  CHECK(totals.saturated == 1);
}

TEST_CASE("a run store refuses a run of another k and a spill folder that does not exist",
          "[kmer]") {
  RunStore store(5, 0, "/nonexistent/seqfuse-spill");
  CHECK_THROWS_AS(store.take(make_run(4, {{"AAAA", 1}})), seqfuse::Error);
  CHECK_THROWS_WITH(
      store.take(make_run(5, {{"AAAAA", 1}})),
      Catch::Contains("cannot create a temporary file in '/nonexistent/seqfuse-spill'"));
}
