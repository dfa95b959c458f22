// The kmer-count jobs end to end, as the command line calls them: count a
// FASTA into a database, then dump, histo and query it; the results agree
// with the plain reference count. Also the tunables read from the
// environment.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"
#include "kmer/count_job.hpp"
#include "kmer/db_jobs.hpp"
#include "kmer/kmer_params.hpp"
#include "kmer/reference.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::kmer;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

const std::vector<std::string> kReads = {"ACGTACGTTTGACCANACGTACGTTT", "acgtacgtttgacc",
                                         "GGGGGGGGGGGG", "TTGACCA"};

// "KMER COUNT" lines of `counts` whose count lies in [lower, upper].
std::string dump_text(const std::map<std::string, std::uint64_t>& counts, std::uint64_t lower,
                      std::uint64_t upper) {
  std::string text;
  for (const auto& [kmer, count] : counts)
    if (count >= lower && count <= upper) text += kmer + " " + std::to_string(count) + "\n";
  return text;
}

// Counts kReads (k = 5, canonical) into dir/reads.kdb; returns its path.
std::string count_into_db(const TempDir& dir, seqfuse::Reporter& report) {
  std::ofstream fasta(dir.file("reads.fa"));
  for (std::size_t i = 0; i < kReads.size(); ++i) fasta << ">r" << i << "\n" << kReads[i] << "\n";
  fasta.close();
  CountOptions options;
  options.k = 5;
  options.max_memory = kMinMaxMemory;
  options.inputs = {dir.file("reads.fa").string()};
  options.db_path = dir.file("reads.kdb").string();
  const CountStats stats = run_count_job(options, report);
  CHECK(stats.reads == kReads.size());
  CHECK(stats.totals.distinct == reference_counts(kReads, 5, true).size());
  return options.db_path;
}

}  // namespace

TEST_CASE("count, then dump, histo and query the database", "[kmer]") {
  const TempDir dir;
  seqfuse::Reporter report("kmer-count", true);
  const std::string db = count_into_db(dir, report);
  const auto counts = reference_counts(kReads, 5, true);

  DumpOptions dump;
  dump.db = db;
  dump.output = dir.file("all.tsv").string();
  CHECK(run_dump_job(dump, report) == counts.size());
  CHECK(slurp(dir.file("all.tsv")) == dump_text(counts, 1, UINT32_MAX));
  dump.output = dir.file("two.tsv").string();
  dump.lower_count = 2;
  dump.upper_count = 2;
  run_dump_job(dump, report);
  CHECK(slurp(dir.file("two.tsv")) == dump_text(counts, 2, 2));
  dump.lower_count = 3;
  CHECK_THROWS_AS(run_dump_job(dump, report), seqfuse::UsageError);

  HistoOptions histo;
  histo.db = db;
  histo.output = dir.file("h.txt").string();
  std::map<std::uint64_t, std::uint64_t> frequencies;
  for (const auto& [kmer, count] : counts) ++frequencies[count];
  std::string expected;
  for (const auto& [count, kmers] : frequencies)
    expected += std::to_string(count) + " " + std::to_string(kmers) + "\n";
  CHECK(run_histo_job(histo, report) == counts.size());
  CHECK(slurp(dir.file("h.txt")) == expected);

  QueryOptions query;
  query.db = db;
  query.output = dir.file("q.txt").string();
  CHECK_THROWS_AS(run_query_job(query, report), seqfuse::UsageError);
  query.kmers = {"acgta", "CCCCC"};
  std::ofstream(dir.file("q.lines")) << "TACGT  \n\nGGGGG\r\n";
  query.file = dir.file("q.lines").string();
  CHECK(run_query_job(query, report) == 4);
  // Canonical forms: ACGTA's reverse complement is TACGT; GGGGG's is CCCCC.
  const std::string acgta = std::to_string(counts.at("ACGTA"));
  const std::string ccccc = std::to_string(counts.at("CCCCC"));
  CHECK(slurp(dir.file("q.txt")) ==
        "ACGTA " + acgta + "\nCCCCC " + ccccc + "\nACGTA " + acgta + "\nCCCCC " + ccccc + "\n");
  query.kmers = {"ACGT"};
  CHECK_THROWS_WITH(run_query_job(query, report),
                    "query 'ACGT' (argument) has 4 letters; the database holds 5-mers");
}

TEST_CASE("the k-mer tunables: built-in defaults, SEQFUSE_KMER_CHUNK_MIB from 1 to 256", "[kmer]") {
  const char* saved = std::getenv("SEQFUSE_KMER_CHUNK_MIB");
  const std::string restore = saved != nullptr ? saved : "";
  const std::size_t fallback = KmerTunables{}.gpu_text_chunk_bytes;
  CHECK(fallback == std::size_t{32} << 20);
  ::unsetenv("SEQFUSE_KMER_CHUNK_MIB");
  CHECK(KmerTunables::from_environment().gpu_text_chunk_bytes == fallback);
  ::setenv("SEQFUSE_KMER_CHUNK_MIB", "8", 1);
  CHECK(KmerTunables::from_environment().gpu_text_chunk_bytes == std::size_t{8} << 20);
  CHECK(CountOptions{}.tunables.gpu_text_chunk_bytes == std::size_t{8} << 20);
  for (const char* ignored : {"0", "257", "x"}) {
    ::setenv("SEQFUSE_KMER_CHUNK_MIB", ignored, 1);
    CHECK(KmerTunables::from_environment().gpu_text_chunk_bytes == fallback);
  }
  if (saved != nullptr)
    ::setenv("SEQFUSE_KMER_CHUNK_MIB", restore.c_str(), 1);
  else
    ::unsetenv("SEQFUSE_KMER_CHUNK_MIB");
}
