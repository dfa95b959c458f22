// The CPU counting engine against the plain reference (std::map of strings)
// on fresh random reads each run: N runs, lowercase, reads shorter than k,
// palindromes, homopolymers; k at the word edges; one and several threads;
// budgets that force many runs; runs spilled to disk.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kmer/count_job.hpp"
#include "kmer/cpu_engine.hpp"
#include "kmer/reference.hpp"
#include "test_kmer_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::kmer;
using test::EngineSetup;

TEST_CASE("CPU engine counts equal the reference for every k class", "[kmer]") {
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::string> reads = test::random_reads(rng, 200, 300);
  for (int k : {1, 2, 3, 5, 15, 21, 31, 32, 33, 45, 63}) {
    for (bool canonical : {true, false}) {
      INFO("k=" << k << " canonical=" << canonical);
      EngineSetup setup;
      setup.k = k;
      setup.canonical = canonical;
      setup.threads = static_cast<unsigned>(1 + (k % 3));
      setup.reads_per_batch = 64;
      const auto expected = reference_counts(reads, k, canonical);
      std::size_t runs = 0;
      CHECK(test::count_on_cpu(reads, setup, &runs) == expected);
      CHECK(runs == (expected.empty() ? 0u : 1u));  // one run: the budget holds everything
    }
  }
}

TEST_CASE("many small runs and spilled runs give the same counts as one run", "[kmer]") {
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::string> reads = test::random_reads(rng, 300, 250);
  for (int k : {5, 31, 33}) {
    INFO("k=" << k);
    EngineSetup one_run;
    one_run.k = k;
    const auto expected = test::count_on_cpu(reads, one_run);
    REQUIRE(expected == reference_counts(reads, k, true));

    EngineSetup tiny = one_run;
    tiny.engine_budget = 4000;  // a few hundred k-mers per run
    tiny.threads = 3;
    std::size_t runs = 0, spilled = 0;
    CHECK(test::count_on_cpu(reads, tiny, &runs, &spilled) == expected);
    CHECK(runs > 20);
    CHECK(spilled == 0);

    tiny.store_cap = 0;  // every run to the spill file
    CHECK(test::count_on_cpu(reads, tiny, &runs, &spilled) == expected);
    CHECK(spilled == runs);

    tiny.store_cap = 20000;  // some in memory, the rest spilled
    CHECK(test::count_on_cpu(reads, tiny, &runs, &spilled) == expected);
    CHECK(spilled > 0);
    CHECK(spilled < runs);
  }
}

TEST_CASE("a record longer than the budget is counted in overlapping pieces", "[kmer]") {
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::string genome;
  for (const std::string& read : test::random_reads(rng, 400, 300)) genome += read;
  const std::vector<std::string> reads = {genome, "ACGT", "", genome.substr(0, 70)};
  EngineSetup setup;
  setup.k = 45;
  setup.engine_budget = 3000;
  setup.threads = 2;
  std::size_t runs = 0;
  CHECK(test::count_on_cpu(reads, setup, &runs) == reference_counts(reads, 45, true));
  CHECK(runs > 10);
}

TEST_CASE("reads shorter than k and empty batches give no k-mers", "[kmer]") {
  EngineSetup setup;
  setup.k = 10;
  CHECK(test::count_on_cpu({"ACGTACGTA", "", "NNNNNNNNNNNN", "ACGTNACGTACG"}, setup).empty());
  CHECK(test::count_on_cpu({}, setup).empty());
}

TEST_CASE("palindromes and homopolymers count both strands once", "[kmer]") {
  EngineSetup setup;
  setup.k = 4;
  // ACGT is its own reverse complement; AAAA and TTTT are one canonical k-mer.
  const auto counts = test::count_on_cpu({"ACGT", "acgt", "AAAAAA", "TTTT"}, setup);
  CHECK(counts == test::LetterCounts{{"AAAA", 4}, {"ACGT", 2}});
}

TEST_CASE("the CPU engine refuses k outside 1..63", "[kmer]") {
  RunStore store(0, 0, ".");
  EngineParams params;
  for (int k : {0, -1, 64}) {
    params.k = k;
    CHECK_THROWS_AS(make_cpu_engine(params, store), seqfuse::UsageError);
  }
}

TEST_CASE("the k-mer bound of the inputs: half of FASTQ, all of FASTA, none for gzip or stdin",
          "[kmer]") {
  seqfuse::test::TempDir dir;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name), std::ios::binary) << text;
    return dir.file(name).string();
  };
  const std::string fastq = write("r.fq", "@r1\nACGTACGTAC\n+\nIIIIIIIIII\n");  // 28 bytes
  const std::string fasta = write("g.fa", ">g\nACGTACGTACGT\n");                // 16 bytes
  const std::string gz = write("r.fq.gz", std::string("\x1f\x8b\x08\x00", 4));
  CHECK(kmer_bound({fastq}, 100) == 100 + 28 / 2);
  CHECK(kmer_bound({fasta}, 0) == 16);
  CHECK(kmer_bound({fastq, fasta}, 5) == 5 + 14 + 16);
  CHECK(kmer_bound({fastq, gz}, 5) == 0);
  CHECK(kmer_bound({"-"}, 5) == 0);
  CHECK(kmer_bound({dir.path().string()}, 5) == 0);  // not a regular file
  // The bound holds: a FASTQ file's k-mers never exceed it.
  CHECK(10 - 3 + 1 <= kmer_bound({fastq}, 0));
}
