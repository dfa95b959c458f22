// The search database (align-db, search_db.hpp): a search of a .sfdb writes
// the bytes a search of its FASTA writes, over random protein and DNA sets
// (empty records and long names included), in every format, with --top,
// --traceback, --pairs and --db-part; and a database that is truncated,
// bit-flipped, of another version or of another alphabet is refused with
// one line naming the file.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "align/align_db.hpp"
#include "align/align_run.hpp"
#include "align/search_db.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "test_data.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::align;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;
using seqfuse::test::test_seed;

namespace {

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A FASTA of `count` records of letters from `letters`, some empty, some
// with long names, wrapped at 60 columns.
std::string random_fasta(std::mt19937_64& rng, std::size_t count, std::string_view letters,
                         std::size_t max_length, bool lower_case) {
  std::string text;
  std::uniform_int_distribution<std::size_t> length(0, max_length);
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  for (std::size_t r = 0; r < count; ++r) {
    text += ">rec" + std::to_string(r);
    if (r % 7 == 3) text += std::string(300 + r, 'n');  // a long name
    text += " a comment\n";
    const std::size_t n = r % 11 == 5 ? 0 : length(rng);
    for (std::size_t k = 0; k < n; ++k) {
      char c = letters[pick(rng)];
      if (lower_case && k % 5 == 0) c = static_cast<char>(std::tolower(c));
      text += c;
      if (k % 60 == 59) text += '\n';
    }
    text += '\n';
  }
  return text;
}

void build_db(const std::filesystem::path& fasta, const std::filesystem::path& db,
              std::string alphabet = "auto", std::string matrix = {}) {
  AlignDbOptions o;
  o.input = fasta.string();
  o.output = db.string();
  o.alphabet = std::move(alphabet);
  o.matrix = std::move(matrix);
  o.threads = 3;
  validate(o);
  seqfuse::Reporter report("align-db", true);
  run_align_db(o, report);
}

std::string search(AlignOptions o, const std::filesystem::path& target,
                   const std::filesystem::path& out) {
  o.target = target.string();
  o.output = out.string();
  validate(o);
  seqfuse::Reporter report("align", true);
  (void)run_align(o, report);
  return slurp(out);
}

// The same search of the FASTA and of its database: the same bytes.
void check_same(const AlignOptions& o, const TempDir& dir, const std::filesystem::path& fasta,
                const std::filesystem::path& db) {
  const std::string from_fasta = search(o, fasta, dir.file("a.out"));
  const std::string from_db = search(o, db, dir.file("b.out"));
  INFO("format " << o.format << " top " << o.top << " mode "
                 << (o.mode == AlignMode::local ? "sw" : "nw") << " pairs " << o.pairs
                 << " db-part " << o.db_part << " traceback " << o.traceback);
  REQUIRE(!from_fasta.empty());
  CHECK(from_fasta == from_db);
}

std::string refusal(const std::filesystem::path& db, const std::filesystem::path& query,
                    const TempDir& dir, const std::string& alphabet = "auto") {
  AlignOptions o;
  o.query = query.string();
  o.alphabet = alphabet;
  std::filesystem::remove(dir.file("refused.out"));
  try {
    (void)search(o, db, dir.file("refused.out"));
  } catch (const seqfuse::Error& e) {
    CHECK(!std::filesystem::exists(dir.file("refused.out")));
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("align search of a database equals the search of its FASTA", "[align][sfdb]") {
  std::mt19937_64 rng(test_seed());
  TempDir dir;
  struct Set {
    const char* alphabet;
    std::string_view letters;
  };
  for (const Set set : {Set{"protein", "ARNDCQEGHILKMFPSTWYVBZX"}, Set{"dna", "ACGTACGTACGTN"}}) {
    const auto fasta = dir.file(std::string(set.alphabet) + ".fa");
    const auto query = dir.file(std::string(set.alphabet) + "_q.fa");
    const auto db = dir.file(std::string(set.alphabet) + ".sfdb");
    write_text(fasta, random_fasta(rng, 60, set.letters, 150, true));
    write_text(query, random_fasta(rng, 60, set.letters, 80, false));
    build_db(fasta, db);
    REQUIRE(is_search_db(db.string()));
    REQUIRE_FALSE(is_search_db(fasta.string()));
    AlignOptions base;
    base.query = query.string();
    base.threads = 2;
    for (const AlignMode mode : {AlignMode::local, AlignMode::global})
      for (const char* format : {"tsv", "csv", "sam", "blast6"})
        for (const int top : {0, 3}) {
          AlignOptions o = base;
          o.mode = mode;
          o.format = format;
          o.top = top;
          check_same(o, dir, fasta, db);
          o.traceback = true;
          check_same(o, dir, fasta, db);
          o.traceback = false;
          o.db_part = "2/3";
          check_same(o, dir, fasta, db);
          o.db_part = "7/7";
          check_same(o, dir, fasta, db);
        }
    AlignOptions pairs = base;
    pairs.pairs = true;
    pairs.traceback = true;
    check_same(pairs, dir, fasta, db);
  }
}

TEST_CASE("align-db of an empty FASTA searches as the empty FASTA", "[align][sfdb]") {
  TempDir dir;
  write_text(dir.file("empty.fa"), "");
  write_text(dir.file("q.fa"), ">q\nMKV\n");
  build_db(dir.file("empty.fa"), dir.file("empty.sfdb"), "protein");
  AlignOptions o;
  o.query = dir.file("q.fa").string();
  o.format = "sam";
  check_same(o, dir, dir.file("empty.fa"), dir.file("empty.sfdb"));
}

TEST_CASE("a damaged or foreign search database is refused naming it", "[align][sfdb]") {
  std::mt19937_64 rng(test_seed());
  TempDir dir;
  const auto fasta = dir.file("p.fa"), query = dir.file("q.fa"), db = dir.file("p.sfdb");
  write_text(fasta, random_fasta(rng, 40, "ARNDCQEGHILKMFPSTWYV", 200, false));
  write_text(query, ">q\nMKVLAAGIW\n");
  build_db(fasta, db);
  const std::string good = slurp(db);
  REQUIRE(refusal(db, query, dir) == "(accepted)");
  const auto damaged = dir.file("damaged.sfdb");
  const std::string name = "'" + damaged.string() + "'";

  SECTION("truncated anywhere") {
    for (const std::size_t keep : {std::size_t{9}, std::size_t{100}, std::size_t{255},
                                   std::size_t{256}, good.size() / 2, good.size() - 1}) {
      write_text(damaged, good.substr(0, keep));
      const std::string what = refusal(damaged, query, dir);
      INFO("kept " << keep << " bytes: " << what);
      CHECK(what.find(name) != std::string::npos);
      CHECK(what.find("truncated") != std::string::npos);
    }
  }
  SECTION("any bit flipped") {
    std::uniform_int_distribution<std::size_t> at(8, good.size() - 1);
    std::vector<std::size_t> places = {12, 30, 100, 250, 300, good.size() / 2, good.size() - 1};
    for (int k = 0; k < 40; ++k) places.push_back(at(rng));
    for (const std::size_t p : places) {
      std::string bytes = good;
      bytes[p] = static_cast<char>(bytes[p] ^ (1 << (p % 8)));
      write_text(damaged, bytes);
      const std::string what = refusal(damaged, query, dir);
      INFO("bit flipped at byte " << p << ": " << what);
      CHECK(what.find(name) != std::string::npos);
      CHECK((what.find("damaged") != std::string::npos ||
             what.find("version") != std::string::npos ||
             what.find("truncated") != std::string::npos));
    }
  }
  SECTION("another version") {
    std::string bytes = good;
    bytes[8] = 2;
    write_text(damaged, bytes);
    CHECK(refusal(damaged, query, dir) ==
          name +
              " is a seqfuse search database of version 2; this seqfuse reads version 1: build "
              "it again with 'seqfuse align-db'");
  }
  SECTION("another alphabet than the search's") {
    write_text(dir.file("dna_q.fa"), ">d\nACGTACGTTTGA\n");
    // auto: the query's letters against the database's stored alphabet.
    const std::string mixed = refusal(db, dir.file("dna_q.fa"), dir);
    CHECK(mixed.find("--alphabet auto: QUERY '") == 0);
    CHECK(mixed.find("' looks like DNA but TARGET '" + db.string() + "' like protein") !=
          std::string::npos);
    // Forced: the database's letters against the scheme's.
    const std::string what = refusal(db, dir.file("dna_q.fa"), dir, "dna");
    CHECK(what.find("TARGET '" + db.string() + "' was built for the letters of blosum62") == 0);
  }
  SECTION("as QUERY") {
    AlignOptions o;
    o.query = db.string();
    o.output = dir.file("x.out").string();
    seqfuse::Reporter report("align", true);
    CHECK_THROWS_WITH(
        run_align(o, report),
        "QUERY '" + db.string() + "' is a seqfuse search database; a database can only be TARGET");
  }
}

TEST_CASE("align-db refuses a letter outside its alphabet like the FASTA search", "[align][sfdb]") {
  TempDir dir;
  write_text(dir.file("bad.fa"), ">a\nMKV\n>b\nMK1V\n");
  AlignDbOptions o;
  o.input = dir.file("bad.fa").string();
  o.output = dir.file("bad.sfdb").string();
  o.alphabet = "protein";
  seqfuse::Reporter report("align-db", true);
  CHECK_THROWS_WITH(run_align_db(o, report),
                    dir.file("bad.fa").string() +
                        ": letter '1' is not in matrix blosum62, record 'b' position 3");
  CHECK_FALSE(std::filesystem::exists(dir.file("bad.sfdb")));
}
