// The merge of sorted runs: sums across runs in memory and on disk, the
// saturating count limit, and its totals.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kmer/kmer_text.hpp"
#include "kmer/run_merge.hpp"
#include "kmer/run_store.hpp"
#include "test_kmer_support.hpp"

using namespace seqfuse::kmer;
using seqfuse::kmer::test::merge_blocks;

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

namespace {

// Random sorted runs of distinct k-mers drawn from a small pool, so runs
// share many k-mers; some counts near the limit so sums saturate.
SortedRun random_run(int k, std::mt19937_64& rng, std::size_t n) {
  const int w = words_for_k(k);
  const std::uint64_t mask = k >= 32 ? ~0ULL : (1ULL << (2 * k)) - 1;
  std::vector<std::array<std::uint64_t, 2>> keys(n);
  for (auto& key : keys) {
    key[0] = (rng() % 20000) * 0x9E3779B97F4A7C15ULL & mask;  // a pool of 20,000 values
    key[1] = w == 2 ? (rng() % 3) & ((1ULL << (2 * (k - 32))) - 1) : 0;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  SortedRun run;
  run.k = k;
  for (const auto& key : keys) {
    run.words.insert(run.words.end(), key.begin(), key.begin() + w);
    run.counts.push_back(rng() % 50 == 0 ? kCountLimit - 1 : std::uint32_t(1 + rng() % 9));
  }
  return run;
}

struct Merged {
  std::vector<std::uint64_t> words;
  std::vector<std::uint32_t> counts;
  MergeTotals totals;
};

// The merge's k-mers in order; `workers` gets the worker id of each part.
Merged merge_all(const RunStore& store, const MergeOptions& options,
                 std::vector<unsigned>* workers = nullptr) {
  Merged m;
  m.totals = merge_blocks(
      store, options,
      [&](const RecordBlock& block) {
        m.words.insert(m.words.end(), block.words,
                       block.words + block.size * block.words_per_kmer());
        m.counts.insert(m.counts.end(), block.counts, block.counts + block.size);
      },
      workers);
  return m;
}

}  // namespace

TEST_CASE("merging key ranges on threads gives the serial merge's blocks", "[kmer]") {
  for (int k : {21, 40}) {
    INFO("k=" << k);
    std::mt19937_64 rng(static_cast<std::uint64_t>(k) * 7919);
    // The first runs stay in memory, the rest spill.
    RunStore store(k, std::size_t{600} << 10, temp_dir());
    for (int r = 0; r < 12; ++r) store.take(random_run(k, rng, 3000 + 500 * std::size_t(r)));
    REQUIRE(!store.memory_runs().empty());
    REQUIRE(!store.spilled_runs().empty());
    MergeOptions serial;
    serial.read_buffer_bytes = 4096;
    const Merged expected = merge_all(store, serial);
    REQUIRE(expected.totals.saturated > 0);
    for (unsigned threads : {2u, 3u, 8u}) {
      INFO("threads " << threads);
      MergeOptions parallel = serial;
      parallel.threads = threads;
      parallel.parallel_from = 0;
      parallel.lookahead_bytes = 64 << 10;  // many small ranges
      std::vector<unsigned> workers;
      const Merged got = merge_all(store, parallel, &workers);
      CHECK(workers.size() > threads);  // parts, each prepared once
      CHECK(*std::max_element(workers.begin(), workers.end()) < threads);
      CHECK(got.words == expected.words);
      CHECK(got.counts == expected.counts);
      CHECK(got.totals.total_kmers == expected.totals.total_kmers);
      CHECK(got.totals.distinct == expected.totals.distinct);
      CHECK(got.totals.saturated == expected.totals.saturated);
    }
  }
}

TEST_CASE("runs with disjoint key spans are cut into parts, prepared on threads", "[kmer]") {
  for (int k : {21, 40}) {
    INFO("k=" << k);
    std::mt19937_64 rng(static_cast<std::uint64_t>(k) * 104729);
    // One random run cut into four runs of disjoint key spans, taken out of
    // order: GPU workers' runs, each of its own key range.
    // 300,000 ascending keys: several parts of at least 65,536 per run.
    SortedRun whole;
    whole.k = k;
    const std::size_t w = static_cast<std::size_t>(whole.words_per_kmer());
    for (std::uint64_t i = 0; i < 300000; ++i) {
      whole.words.push_back(i * 65537 + rng() % 65537);
      if (w == 2) whole.words.push_back(rng() % 16);
      whole.counts.push_back(rng() % 50 == 0 ? kCountLimit : std::uint32_t(1 + rng() % 9));
    }
    RunStore store(k, std::size_t{1} << 30, temp_dir());
    for (const std::size_t quarter : {2u, 0u, 3u, 1u}) {
      const std::size_t begin = whole.size() * quarter / 4, end = whole.size() * (quarter + 1) / 4;
      SortedRun run;
      run.k = k;
      run.words.assign(whole.words.begin() + begin * w, whole.words.begin() + end * w);
      run.counts.assign(whole.counts.begin() + begin, whole.counts.begin() + end);
      store.take(std::move(run));
    }
    for (unsigned threads : {1u, 3u}) {
      INFO("threads " << threads);
      MergeOptions options;
      options.threads = threads;
      options.lookahead_bytes = 64 << 10;  // the smallest parts: 65,536 k-mers
      std::vector<unsigned> workers;
      const Merged got = merge_all(store, options, &workers);
      CHECK(std::equal(got.words.begin(), got.words.end(), whole.words.begin(), whole.words.end()));
      CHECK(std::equal(got.counts.begin(), got.counts.end(), whole.counts.begin(),
                       whole.counts.end()));
      CHECK(got.totals.distinct == whole.size());
      CHECK(workers.size() == 8);  // 75,000 k-mers a run: two parts each
      CHECK(*std::max_element(workers.begin(), workers.end()) < threads);
    }
  }
}
