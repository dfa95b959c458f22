// Agreement with the peer: Debian's parasail_aligner (parasail 2.6) run on
// real proteins (mmseqs2-examples) and lambda phage DNA (bowtie2-examples),
// fixtures in tests/data/align/ made by scripts/make-align-fixtures.py.
// Scores and end positions must be identical. Skipped with a warning when
// parasail_aligner is not on PATH (CI installs it).
//
// What these tests pin down about parasail_aligner:
//  - `-x` turns off its suffix-array pre-filter, else pairs without a shared
//    7-mer are silently dropped; `-q QUERIES -f TARGETS` aligns every query
//    with every target; `-g FILE` names the CSV output.
//  - It polls stdin and takes readable stdin (even /dev/null) as a third input
//    and refuses to run; stdin must be closed (`<&-`).
//  - CSV rows: query index, target index, query length, target length, score,
//    query end, target end; indices and ends 0-based.
//  - `-M match -X mismatch` apply only with `-d`, which builds an ACGT matrix
//    where every pair involving another letter (N, IUPAC, anything) scores 0.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "align/builtin_matrices.hpp"
#include "align/cpu_engine.hpp"
#include "align/reference.hpp"
#include "align/scoring.hpp"
#include "test_align_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::align;
using seqfuse::align::test::FastaRecord;
using seqfuse::align::test::kAlignData;
using seqfuse::align::test::read_fasta;

namespace fs = std::filesystem;

namespace {

bool parasail_available() {
  static const bool available = std::system("command -v parasail_aligner >/dev/null 2>&1") == 0;
  return available;
}

// (Built by append: GCC 12 warns falsely (-Wrestrict) on "q" + std::to_string(k).)
std::string record_name(char prefix, int index) {
  std::string name(1, prefix);
  name.append(std::to_string(index));
  return name;
}

struct ParasailRow {
  int score;
  int query_end;
  int target_end;
};

void write_fasta(const fs::path& path, const std::vector<FastaRecord>& records) {
  std::ofstream out(path);
  for (const FastaRecord& r : records) out << '>' << r.name << '\n' << r.sequence << '\n';
}

// Runs parasail_aligner and returns its rows keyed by (query, target) index.
std::map<std::pair<int, int>, ParasailRow> run_parasail(const std::string& arguments,
                                                        const fs::path& queries,
                                                        const fs::path& targets,
                                                        const fs::path& scratch) {
  const fs::path csv = scratch / "parasail.csv";
  fs::remove(csv);
  const std::string command = "parasail_aligner -x -t 1 " + arguments + " -q '" + queries.string() +
                              "' -f '" + targets.string() + "' -g '" + csv.string() + "' <&- >'" +
                              (scratch / "log").string() + "' 2>&1";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream in(csv);
  REQUIRE(in.good());
  std::map<std::pair<int, int>, ParasailRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<long> values;
    std::string field;
    while (std::getline(fields, field, ',')) values.push_back(std::stol(field));
    REQUIRE(values.size() >= 7);
    rows[{int(values[0]), int(values[1])}] =
        ParasailRow{int(values[4]), int(values[5]), int(values[6])};
  }
  return rows;
}

struct Comparison {
  std::string parasail_arguments;  // function, matrix, gaps
  ScoringScheme scheme;
  AlignMode mode;
};

// Every query against every target with the engine, and the first pairs with
// the reference too, against parasail_aligner's rows.
void compare_all_pairs(const Comparison& c, const fs::path& query_file, const fs::path& target_file,
                       const fs::path& scratch) {
  const std::vector<FastaRecord> query_records = read_fasta(query_file);
  const std::vector<FastaRecord> target_records = read_fasta(target_file);
  EncodedSequences queries(c.scheme), targets(c.scheme);
  for (const auto& r : query_records) queries.append(r.sequence, r.name);
  for (const auto& r : target_records) targets.append(r.sequence, r.name);
  const auto rows = run_parasail(c.parasail_arguments, query_file, target_file, scratch);
  REQUIRE(rows.size() == queries.size() * targets.size());

  CpuEngine engine(c.scheme, c.mode, {.threads = 2});
  const auto hits = engine.search(queries.views(), targets.views(), 0);
  int reference_checks = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    REQUIRE(hits[q].size() == targets.size());
    for (const SearchHit& hit : hits[q]) {
      const ParasailRow& expected = rows.at({int(q), int(hit.target)});
      INFO(c.parasail_arguments << ": query " << query_records[q].name << " target "
                                << target_records[hit.target].name);
      CHECK(hit.result.score == expected.score);
      CHECK(hit.result.query_end == expected.query_end);
      CHECK(hit.result.target_end == expected.target_end);
      if (reference_checks++ < 100) {
        const AlignResult ref = reference_score(c.mode, c.scheme, queries[q], targets[hit.target]);
        CHECK(ref.score == expected.score);
        CHECK(ref.query_end == expected.query_end);
        CHECK(ref.target_end == expected.target_end);
      }
    }
  }
}

}  // namespace

TEST_CASE("built-in matrices equal parasail_aligner's, entry by entry", "[align][parasail]") {
  if (!parasail_available()) {
    WARN("parasail_aligner is not on PATH; skipping the comparison with Parasail");
    return;
  }
  seqfuse::test::TempDir scratch;
  for (const BuiltinMatrix& matrix : builtin_matrices()) {
    INFO(matrix.name);
    // One record per letter; a global alignment of two single letters with a
    // prohibitive gap open is their substitution score.
    std::vector<FastaRecord> letters;
    for (char letter : matrix.letters)
      letters.push_back({std::string(1, letter), std::string(1, letter)});
    const fs::path fasta = scratch.path() / "letters.fa";
    write_fasta(fasta, letters);
    const auto rows = run_parasail("-a nw -o 100 -e 1 -m " + std::string(matrix.name), fasta, fasta,
                                   scratch.path());
    const std::size_t size = matrix.letters.size();
    REQUIRE(rows.size() == size * size);
    for (const auto& [pair, row] : rows) {
      INFO(matrix.letters[std::size_t(pair.first)] << " vs "
                                                   << matrix.letters[std::size_t(pair.second)]);
      CHECK(int(matrix.scores[std::size_t(pair.first) * size + std::size_t(pair.second)]) ==
            row.score);
    }
  }
}

TEST_CASE("engine equals parasail_aligner on real proteins", "[align][parasail]") {
  if (!parasail_available()) {
    WARN("parasail_aligner is not on PATH; skipping the comparison with Parasail");
    return;
  }
  seqfuse::test::TempDir scratch;
  const fs::path queries = kAlignData / "proteins_queries.fa";
  const fs::path targets = kAlignData / "proteins_targets.fa";
  const Comparison comparisons[] = {
      {"-a sw_striped_32 -m blosum62 -o 11 -e 1", ScoringScheme::builtin("blosum62", {11, 1}),
       AlignMode::local},
      {"-a nw_striped_32 -m blosum62 -o 11 -e 1", ScoringScheme::builtin("blosum62", {11, 1}),
       AlignMode::global},
      {"-a sw_striped_32 -m pam30 -o 9 -e 1", ScoringScheme::builtin("pam30", {9, 1}),
       AlignMode::local},
      {"-a nw_striped_32 -m blosum45 -o 10 -e 2", ScoringScheme::builtin("blosum45", {10, 2}),
       AlignMode::global},
  };
  for (const Comparison& c : comparisons) compare_all_pairs(c, queries, targets, scratch.path());
}

TEST_CASE("engine equals parasail_aligner on lambda phage DNA", "[align][parasail]") {
  if (!parasail_available()) {
    WARN("parasail_aligner is not on PATH; skipping the comparison with Parasail");
    return;
  }
  seqfuse::test::TempDir scratch;
  const fs::path queries = kAlignData / "lambda_queries.fa";
  const fs::path targets = kAlignData / "lambda_targets.fa";
  const Comparison comparisons[] = {
      {"-a sw_striped_32 -m nuc44 -o 5 -e 2", ScoringScheme::builtin("nuc44", {5, 2}),
       AlignMode::local},
      {"-a nw_striped_32 -m nuc44 -o 5 -e 2", ScoringScheme::builtin("nuc44", {5, 2}),
       AlignMode::global},
      {"-a sw_striped_32 -d -M 2 -X 3 -o 5 -e 2", ScoringScheme::match_mismatch(2, -3, {5, 2}),
       AlignMode::local},
      {"-a nw_striped_32 -d -M 2 -X 3 -o 5 -e 2", ScoringScheme::match_mismatch(2, -3, {5, 2}),
       AlignMode::global},
  };
  for (const Comparison& c : comparisons) compare_all_pairs(c, queries, targets, scratch.path());
}

TEST_CASE("parasail_aligner scores N and IUPAC codes 0 with -d; AmbiguousBases::zero matches",
          "[align][parasail]") {
  if (!parasail_available()) {
    WARN("parasail_aligner is not on PATH; skipping the comparison with Parasail");
    return;
  }
  seqfuse::test::TempDir scratch;
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  test::RandomSequences random(seed);
  std::vector<FastaRecord> queries, targets;
  for (int k = 0; k < 12; ++k) {
    const std::string q = random.random("ACGTACGTNRYKMSWBDHV", std::size_t(random.uniform(1, 80)));
    queries.push_back({record_name('q', k), q});
    // Never empty: parasail_aligner reports score 0 at (0, 0) for an empty
    // sequence, where the alignment against nothing is all gap (global) or has
    // no cell at all (local, ends -1); seqfuse keeps the arithmetic answer.
    std::string target;
    while (target.empty()) target = random.mutate(q, "ACGTN", 0.2);
    targets.push_back({record_name('t', k), target});
  }
  targets.push_back({"all_n", std::string(50, 'N')});
  write_fasta(scratch.path() / "q.fa", queries);
  write_fasta(scratch.path() / "t.fa", targets);
  for (AlignMode mode : {AlignMode::local, AlignMode::global}) {
    const Comparison c{std::string("-a ") + (mode == AlignMode::local ? "sw" : "nw") +
                           "_striped_32 -d -M 2 -X 3 -o 5 -e 2",
                       ScoringScheme::match_mismatch(2, -3, {5, 2}, AmbiguousBases::zero), mode};
    compare_all_pairs(c, scratch.path() / "q.fa", scratch.path() / "t.fa", scratch.path());
  }
}

TEST_CASE("local end cells equal parasail_aligner's on tie-heavy random DNA", "[align][parasail]") {
  if (!parasail_available()) {
    WARN("parasail_aligner is not on PATH; skipping the comparison with Parasail");
    return;
  }
  seqfuse::test::TempDir scratch;
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  test::RandomSequences random(seed);
  // A two-letter alphabet and +1/-1 scores make many cells share the maximum.
  std::vector<FastaRecord> queries, targets;
  for (int k = 0; k < 30; ++k) {
    queries.push_back(
        {record_name('q', k), random.random("AC", std::size_t(random.uniform(1, 70)))});
    targets.push_back(
        {record_name('t', k), random.random("AC", std::size_t(random.uniform(1, 70)))});
  }
  write_fasta(scratch.path() / "q.fa", queries);
  write_fasta(scratch.path() / "t.fa", targets);
  for (const char* function : {"sw", "sw_striped_16", "sw_scan_16"}) {
    const Comparison c{std::string("-a ") + function + " -d -M 1 -X 1 -o 2 -e 1",
                       ScoringScheme::match_mismatch(1, -1, {2, 1}), AlignMode::local};
    compare_all_pairs(c, scratch.path() / "q.fa", scratch.path() / "t.fa", scratch.path());
  }
}
