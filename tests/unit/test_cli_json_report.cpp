// `--json FILE` on every subcommand, through the seqfuse binary: the report
// parses, holds the keys of docs/json-report.md, and its counts agree with
// the outputs the same run wrote; a refused report path fails before work.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_data.hpp"
#include "test_temp_dir.hpp"

namespace {

using nlohmann::json;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;
namespace fs = std::filesystem;

// $SEQFUSE_BINARY when set, else the build's binary compiled in.
std::string binary() {
  if (const char* env = std::getenv("SEQFUSE_BINARY"); env && *env) return env;
  return SEQFUSE_BINARY_PATH;
}

std::string data(const std::string& name) {
  return (seqfuse::test::data_dir() / name).string();
}

// Runs `arguments` (shell words) with the binary in `dir`; stderr goes to dir/stderr.
int run_seqfuse(const TempDir& dir, const std::string& arguments) {
  const std::string command =
      "cd '" + dir.path().string() + "' && '" + binary() + "' " + arguments + " 2> stderr";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> lines_of(const fs::path& path) {
  std::istringstream in(slurp(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Checks the keys every report has, and returns it.
json checked_report(const TempDir& dir, const std::string& name, const std::string& subcommand,
                    const std::vector<std::string>& phases, const std::string& unit) {
  const json report = json::parse(slurp(dir.file(name)));
  INFO(report.dump(2));
  CHECK(report.at("schema") == "seqfuse-run-report");
  CHECK(report.at("schema_version") == 1);
  CHECK(report.at("tool") == "seqfuse");
  CHECK_FALSE(report.at("version").get<std::string>().empty());
  CHECK_FALSE(report.at("commit").get<std::string>().empty());
  CHECK(report.at("subcommand") == subcommand);
  const auto& argv = report.at("command_line");
  REQUIRE(argv.size() > 2);
  CHECK(argv[0] == binary());
  CHECK(argv.back() == "-q");  // each run below ends its command line with -q
  CHECK(report.at("status") == "ok");
  CHECK(report.at("exit_status") == 0);
  CHECK(report.at("device").at("kind") ==
        "cpu");  // the tests run with --device cpu (a GPU machine's auto is its GPU)
  CHECK(report.at("device").at("name") == "cpu");
  CHECK(report.at("device").at("threads").get<unsigned>() >= 1);
  for (const char* list : {"inputs", "outputs"}) {
    REQUIRE_FALSE(report.at(list).empty());
    for (const json& file : report.at(list)) {
      const fs::path path = fs::path(file.at("path").get<std::string>());
      const fs::path where = path.is_absolute() ? path : dir.path() / path;
      if (fs::is_regular_file(where))
        CHECK(file.at("bytes") == fs::file_size(where));
      else
        CHECK(file.at("bytes").is_null());
    }
  }
  std::vector<std::string> names;
  double sum = 0;
  for (const json& phase : report.at("seconds").at("phases")) {
    names.push_back(phase.at("name"));
    CHECK(phase.at("seconds").get<double>() >= 0);
    sum += phase.at("seconds").get<double>();
  }
  CHECK(names == phases);
  CHECK(report.at("seconds").at("total").get<double>() >= sum);
  CHECK(report.at("throughput").at("unit") == unit);
  CHECK(report.at("throughput").at("value").get<double>() >= 0);
  return report;
}

std::uint64_t records_in(const std::string& fasta) {
  std::uint64_t records = 0;
  for (const std::string& line : lines_of(fasta)) records += !line.empty() && line[0] == '>';
  return records;
}

}  // namespace

TEST_CASE("--json: align-sw and align-nw count what they wrote", "[report][cli]") {
  TempDir dir;
  const std::string query = data("align/lambda_queries.fa"),
                    target = data("align/lambda_targets.fa");
  REQUIRE(run_seqfuse(dir, "align-sw " + query + " " + target +
                               " --top 3 -t 2 --device cpu -o hits.tsv --json r.json -q") == 0);
  const json report = checked_report(dir, "r.json", "align-sw", {"read", "align"}, "cells/s");
  const json& counts = report["counts"];
  CHECK(counts.at("queries") == records_in(query));
  CHECK(counts.at("targets") == records_in(target));
  CHECK(counts.at("pairs") == records_in(query) * records_in(target));
  CHECK(counts.at("cells").get<std::uint64_t>() > 0);
  CHECK(counts.at("alignments") == lines_of(dir.file("hits.tsv")).size() - 1);  // a header line
  CHECK(report["inputs"].size() == 2);
  CHECK(report["outputs"][0]["path"] == "hits.tsv");
  CHECK(report["device"]["threads"] == 2);

  // The report on stdout, the hits in a file; all against all in one file.
  REQUIRE(run_seqfuse(dir, "align-nw " + query +
                               " --top 0 --device cpu -o all.tsv --json - -q > out.json") == 0);
  const json nw = checked_report(dir, "out.json", "align-nw", {"read", "align"}, "cells/s");
  CHECK(nw["counts"]["targets"] == records_in(query));
  CHECK(nw["counts"]["alignments"] == lines_of(dir.file("all.tsv")).size() - 1);
}

TEST_CASE("--json: kmer-count and its database commands", "[report][cli]") {
  TempDir dir;
  const std::string reads = data("kmer/edge.fq");
  REQUIRE(run_seqfuse(dir, "kmer-count -k 15 -L 2 --device cpu " + reads +
                               " -o e.kdb --histo e.histo --dump e.dump --json count.json -q") ==
          0);
  const json count =
      checked_report(dir, "count.json", "kmer-count", {"count", "write"}, "k-mers/s");
  std::uint64_t distinct = 0, total = 0;
  for (const std::string& line : lines_of(dir.file("e.histo"))) {
    std::istringstream fields(line);
    std::uint64_t times = 0, kmers = 0;
    fields >> times >> kmers;
    distinct += kmers;
    total += times * kmers;
  }
  CHECK(count["counts"]["kmers_distinct"] == distinct);
  CHECK(count["counts"]["kmers_total"] == total);
  CHECK(count["counts"]["kmers_kept"] == lines_of(dir.file("e.dump")).size());
  CHECK(count["counts"]["reads"] == 150);
  CHECK(count["outputs"].size() == 3);

  REQUIRE(run_seqfuse(dir, "kmer-count dump e.kdb -o d.txt --json dump.json -q") == 0);
  const json dump = checked_report(dir, "dump.json", "kmer-count dump", {"dump"}, "k-mers/s");
  CHECK(dump["counts"]["kmers_written"] == lines_of(dir.file("d.txt")).size());
  CHECK(dump["device"]["threads"] == 1);

  REQUIRE(run_seqfuse(dir, "kmer-count histo e.kdb -o h.txt --json histo.json -q") == 0);
  const json histo = checked_report(dir, "histo.json", "kmer-count histo", {"histo"}, "k-mers/s");
  CHECK(histo["counts"]["kmers_distinct"] == lines_of(dir.file("d.txt")).size());

  REQUIRE(run_seqfuse(dir,
                      "kmer-count query e.kdb AAAAAAAAAAAAAAA CCCCCCCCCCCCCCC -o q.txt "
                      "--json query.json -q") == 0);
  const json query = checked_report(dir, "query.json", "kmer-count query", {"query"}, "k-mers/s");
  CHECK(query["counts"]["kmers_queried"] == 2);

  REQUIRE(run_seqfuse(dir, "kmer-count stats e.kdb -o s.txt --json stats.json -q") == 0);
  const json stats = checked_report(dir, "stats.json", "kmer-count stats", {"stats"}, "k-mers/s");
  const json& c = stats["counts"];
  const std::string expected =
      "Unique:    " + std::to_string(c["unique"].get<std::uint64_t>()) +
      "\nDistinct:  " + std::to_string(c["distinct"].get<std::uint64_t>()) +
      "\nTotal:     " + std::to_string(c["total"].get<std::uint64_t>()) +
      "\nMax_count: " + std::to_string(c["max_count"].get<std::uint64_t>()) + "\n";
  CHECK(slurp(dir.file("s.txt")) == expected);
  CHECK(c["unique"] == 0);  // the database was written with -L 2
  CHECK(c["distinct"] == count["counts"]["kmers_kept"]);
}

TEST_CASE("--json: bwt counts the reference it indexed", "[report][cli]") {
  TempDir dir;
  const std::string reference = data("bwt/multi.fa");
  REQUIRE(run_seqfuse(dir, "bwt " + reference + " -p idx --device cpu --json r.json -q") == 0);
  const json report = checked_report(dir, "r.json", "bwt", {"read", "sort", "write"}, "bp/s");
  std::uint64_t bases = 0;
  for (const std::string& line : lines_of(reference))
    if (!line.empty() && line[0] != '>') bases += line.size();
  CHECK(report["counts"]["records"] == records_in(reference));
  CHECK(report["counts"]["bases"] == bases);
  CHECK(report["counts"]["suffixes"] == 2 * bases + 1);  // both strands and '$'
  CHECK(report["outputs"].size() == 5);                  // .bwt .sa .pac .ann .amb
}

TEST_CASE("--json: embed counts sequences and tokens", "[report][cli]") {
  TempDir dir;
  {
    std::ofstream fasta(dir.file("p.fa"));
    fasta << ">a\nMKTAYIAKQR\n>b\nMLV\n";
  }
  REQUIRE(run_seqfuse(dir, "embed --model " + data("embed/esm_hd16_fp32_hub") +
                               " p.fa -o e.tsv --device cpu -t 1 --json r.json -q") == 0);
  const json report =
      checked_report(dir, "r.json", "embed", {"load", "read", "embed", "write"}, "tokens/s");
  CHECK(report["counts"]["sequences"] == lines_of(dir.file("e.tsv")).size());
  CHECK(report["counts"]["tokens"] == (10 + 2) + (3 + 2));  // <cls> and <eos> on each
  CHECK(report["inputs"][0]["bytes"].is_null());            // the model is a folder
}

TEST_CASE("--json: a refused report path fails before any work", "[report][cli]") {
  TempDir dir;
  const std::string query = data("align/lambda_queries.fa");
  CHECK(run_seqfuse(dir, "align-sw " + query + " -o hits.tsv --json no/dir/r.json -q") == 1);
  CHECK(slurp(dir.file("stderr")) ==
        "seqfuse align-sw: error: cannot create output 'no/dir/r.json': No such file or "
        "directory\n");
  CHECK_FALSE(fs::exists(dir.file("hits.tsv")));

  // stdout is the hits' already.
  CHECK(run_seqfuse(dir, "align-sw " + query + " --json - -q") == 2);
  CHECK(lines_of(dir.file("stderr")).size() == 1);
  // The report may not overwrite an input, or another output.
  CHECK(run_seqfuse(dir, "kmer-count -k 5 " + data("kmer/edge.fa") + " --histo h --json h -q") ==
        2);
  CHECK(lines_of(dir.file("stderr")).size() == 1);
  CHECK_FALSE(fs::exists(dir.file("h")));

  // A run that fails after its report was opened leaves none (and no other output).
  {
    std::ofstream bad(dir.file("bad.fa"));
    bad << ">p\nMKJL\n";
  }
  CHECK(run_seqfuse(dir, "align-sw bad.fa -o hits.tsv --json r.json -q") == 1);
  CHECK_FALSE(fs::exists(dir.file("r.json")));
  CHECK_FALSE(fs::exists(dir.file("hits.tsv")));
  // ... and a report of an earlier run at that path stays as it was.
  std::ofstream(dir.file("old.json")) << "{}\n";
  CHECK(run_seqfuse(dir, "align-sw bad.fa -o hits.tsv --json old.json -q") == 1);
  CHECK(slurp(dir.file("old.json")) == "{}\n");
}

TEST_CASE("--json: align-db counts the records and residues it stored", "[report][cli][sfdb]") {
  TempDir dir;
  const std::string target = data("align/proteins_targets.fa");
  REQUIRE(run_seqfuse(dir, "align-db " + target + " -t 2 -o t.sfdb --json r.json -q") == 0);
  const json report =
      checked_report(dir, "r.json", "align-db", {"read", "encode", "write"}, "residues/s");
  CHECK(report["counts"].at("records") == records_in(target));
  CHECK(report["counts"].at("residues").get<std::uint64_t>() > 0);
  CHECK(report["outputs"][0]["path"] == "t.sfdb");
  CHECK(report["device"]["threads"] == 2);
}
