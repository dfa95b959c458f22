// Scoring schemes: built-in tables, the NCBI matrix reader, the DNA
// match/mismatch scheme, encoding and its errors.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "align/builtin_matrices.hpp"
#include "align/matrix_file.hpp"
#include "align/scoring.hpp"
#include "core/error.hpp"
#include "test_align_support.hpp"

using namespace seqfuse::align;
using seqfuse::align::test::encode;

namespace {

int score_of(const ScoringScheme& scheme, char a, char b) {
  return scheme.score(scheme.code(a), scheme.code(b));
}

std::string error_of(std::string_view text) {
  try {
    (void)parse_ncbi_matrix(text, "m.txt");
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("built-in matrices hold the NCBI values Parasail uses", "[align]") {
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  CHECK(b62.letters() == "ARNDCQEGHILKMFPSTWYVBZX*");
  CHECK(score_of(b62, 'W', 'W') == 11);
  CHECK(score_of(b62, 'A', 'A') == 4);
  CHECK(score_of(b62, 'A', 'X') == 0);  // the classic table; newer NCBI files say -1
  CHECK(score_of(b62, 'C', 'X') == -2);
  CHECK(score_of(b62, '*', '*') == 1);
  CHECK(score_of(b62, 'N', 'B') == 3);
  CHECK(b62.max_score() == 11);
  CHECK(b62.min_score() == -4);
  CHECK(score_of(ScoringScheme::builtin("blosum80", {11, 1}), 'A', 'A') == 7);
  CHECK(score_of(ScoringScheme::builtin("pam30", {11, 1}), 'W', 'W') == 13);
  CHECK(score_of(ScoringScheme::builtin("pam250", {11, 1}), 'C', 'C') == 12);
  const auto nuc = ScoringScheme::builtin("NUC44", {5, 2});  // names are case-insensitive
  CHECK(nuc.letters() == "ATGCSWRYKMBVHDN");
  CHECK(score_of(nuc, 'A', 'A') == 5);
  CHECK(score_of(nuc, 'A', 'T') == -4);
  CHECK(score_of(nuc, 'A', 'R') == 1);
  CHECK(score_of(nuc, 'N', 'N') == -1);
  CHECK(ScoringScheme::builtin_names().size() == 8);
  for (const BuiltinMatrix& m : builtin_matrices()) {
    INFO(m.name);
    CHECK(m.scores.size() == m.letters.size() * m.letters.size());
    for (std::size_t a = 0; a < m.letters.size(); ++a) {
      for (std::size_t b = 0; b < m.letters.size(); ++b) {
        CHECK(m.scores[a * m.letters.size() + b] == m.scores[b * m.letters.size() + a]);
      }
    }
  }
  CHECK_THROWS_AS(ScoringScheme::builtin("blosum99", {11, 1}), seqfuse::UsageError);
}

TEST_CASE("built-in tables equal the EMBOSS files they were generated from", "[align]") {
  const std::filesystem::path dir = "/usr/share/EMBOSS/data";
  if (!std::filesystem::exists(dir / "EBLOSUM62")) {
    WARN("emboss-data is not installed; skipping the comparison with its files");
    return;
  }
  for (const BuiltinMatrix& m : builtin_matrices()) {
    INFO(m.name);
    const MatrixTable file = read_ncbi_matrix_file((dir / std::string(m.source)).string());
    CHECK(file.letters == m.letters);
    CHECK(std::equal(file.scores.begin(), file.scores.end(), m.scores.begin(), m.scores.end()));
  }
}

TEST_CASE("encoding folds case and names the first letter outside the alphabet", "[align]") {
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  CHECK(encode(b62, "acdefGHIKLmnpqrstvwyBZX*") == encode(b62, "ACDEFGHIKLMNPQRSTVWYBZX*"));
  std::vector<std::uint8_t> codes{7};
  const EncodeStatus bad = b62.encode("MKJAU", codes);
  CHECK_FALSE(bad.ok);
  CHECK(bad.position == 2);
  CHECK(bad.letter == 'J');
  CHECK(codes == std::vector<std::uint8_t>{7});  // unchanged on failure
  CHECK(b62.encode("MK", codes).ok);
  CHECK(codes.size() == 3);  // appended
  try {
    b62.encode_or_throw("MKAuA", "sp|P1|X", codes);
    FAIL("no error");
  } catch (const seqfuse::Error& e) {
    CHECK(std::string(e.what()) ==
          "letter 'u' is not in matrix blosum62, record 'sp|P1|X' position 4");
  }
  EncodedSequences set(b62);
  set.append("ACD", "a");
  set.append("", "empty");
  set.append("wy", "b");
  REQUIRE(set.size() == 3);
  CHECK(set[1].empty());
  CHECK(set[2].size() == 2);
  CHECK(set[2][0] == b62.code('W'));
  CHECK_THROWS_WITH(set.append("A-C", "gapped"),
                    Catch::Contains("letter '-'") && Catch::Contains("'gapped' position 2"));
}

TEST_CASE("append_all encodes a flat batch on threads as append does, record by record",
          "[align]") {
  const auto b62 = ScoringScheme::builtin("blosum62", {11, 1});
  std::mt19937_64 rng(20261124);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYacdefBZX*";
  std::string bases;
  std::vector<std::uint64_t> offsets{5};  // a batch may start anywhere
  std::vector<std::string> names;
  for (int r = 0; r < 3000; ++r) {
    const std::size_t length = rng() % 6000;  // ~9 MB in all: three 4 MiB slices
    for (std::size_t i = 0; i < length; ++i) bases += letters[rng() % letters.size()];
    offsets.push_back(offsets.back() + length);
    names.push_back("r" + std::to_string(r));
  }
  const auto name_of = [&names](std::size_t i) { return std::string_view(names[i]); };
  EncodedSequences one_by_one(b62);
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    one_by_one.append(std::string_view(bases).substr(offsets[i] - 5, offsets[i + 1] - offsets[i]),
                      names[i]);
  for (unsigned threads : {1U, 3U, 8U}) {
    EncodedSequences all(b62);
    all.append("MK", "before");
    all.append_all(bases, offsets, name_of, threads);
    REQUIRE(all.size() == one_by_one.size() + 1);
    for (std::size_t i = 0; i < one_by_one.size(); ++i) {
      const Codes a = all[i + 1], b = one_by_one[i];
      REQUIRE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    }
  }
  // Two bad records: the first in order is named, whatever thread saw which.
  std::size_t early = 10;
  while (offsets[early + 1] == offsets[early]) ++early;  // a record with letters
  std::string bad = bases;
  bad[offsets[2900] - 5] = 'J';  // in the last slice
  bad[offsets[early] - 5] = 'U';
  EncodedSequences failed(b62);
  CHECK_THROWS_WITH(failed.append_all(bad, offsets, name_of, 8),
                    Catch::Contains("letter 'U'") &&
                        Catch::Contains("record 'r" + std::to_string(early) + "' position 1"));
  CHECK(failed.size() == 0);
}

TEST_CASE("match/mismatch DNA scheme scores N and IUPAC codes as mismatches", "[align]") {
  const auto dna = ScoringScheme::match_mismatch(2, -3, {5, 2});
  CHECK(score_of(dna, 'A', 'A') == 2);
  CHECK(score_of(dna, 'a', 'T') == -3);
  for (char code : std::string("NRYSWKMBDHV")) {
    INFO(code);
    CHECK(score_of(dna, code, 'A') == -3);
    CHECK(score_of(dna, 'G', code) == -3);
    CHECK(score_of(dna, code, code) == -3);  // N never matches, not even N
  }
  CHECK(dna.code('U') == ScoringScheme::kNotInAlphabet);
  CHECK(dna.code('X') == ScoringScheme::kNotInAlphabet);
  // Parasail's `-d -M 2 -X 3` scores every pair involving a non-ACGT letter 0.
  const auto zero = ScoringScheme::match_mismatch(2, -3, {5, 2}, AmbiguousBases::zero);
  CHECK(score_of(zero, 'N', 'A') == 0);
  CHECK(score_of(zero, 'N', 'N') == 0);
  CHECK(score_of(zero, 'C', 'C') == 2);
  CHECK(score_of(zero, 'C', 'G') == -3);
  CHECK_THROWS_AS(ScoringScheme::match_mismatch(200, -3, {5, 2}), seqfuse::UsageError);
}

TEST_CASE("gap penalties are validated", "[align]") {
  CHECK_NOTHROW(validate_gaps({11, 1}));
  CHECK_NOTHROW(validate_gaps({1, 1}));
  CHECK_NOTHROW(validate_gaps({0, 0}));
  CHECK_THROWS_AS(validate_gaps({-1, 1}), seqfuse::UsageError);
  CHECK_THROWS_AS(validate_gaps({1, 2}), seqfuse::UsageError);
  CHECK_THROWS_AS(validate_gaps({20000, 1}), seqfuse::UsageError);
  CHECK_THROWS_AS(ScoringScheme::builtin("blosum62", {1, 5}), seqfuse::UsageError);
}

TEST_CASE("NCBI matrix reader accepts the format and reports each error with its line", "[align]") {
  const MatrixTable ok = parse_ncbi_matrix(
      "# a comment\n\n   A  c  G\na  1 -2 +3\r\nG  3 -1 2\nC -2  5 -1\n", "m.txt");
  CHECK(ok.letters == "ACG");
  CHECK(ok.scores == std::vector<int>{1, -2, 3, -2, 5, -1, 3, -1, 2});  // rows in header order

  CHECK(error_of("A C\nA 1 2\n") == "no row for letter 'C', m.txt:1");
  CHECK(error_of("A C\nA 1 2\nC 1\n") == "row 'C' has 1 scores, expected 2, m.txt:3");
  CHECK(error_of("A C\nA 1 2 3\n") == "row 'A' has 3 scores, expected 2, m.txt:2");
  CHECK(error_of("A C\nA 1 x\n") == "score 'x' is not an integer, m.txt:2");
  CHECK(error_of("A C\nA 1 2.5\n") == "score '2.5' is not an integer, m.txt:2");
  CHECK(error_of("A C\nA 1 2\nC 1 2\nG 1 2\n") ==
        "row letter 'G' is not in the header (the matrix is not square), m.txt:4");
  CHECK(error_of("A C\nA 1 2\nA 1 2\n") == "second row for letter 'A', m.txt:3");
  CHECK(error_of("A A\n") == "letter 'A' appears twice in the header, m.txt:1");
  CHECK(error_of("A CD\n") == "header entry 'CD' is not one letter, m.txt:1");
  CHECK(error_of("A C\nA 1 300\n") == "score 300 is outside -127..127, m.txt:2");
  CHECK(error_of("# only comments\n") == "no header row of letters, m.txt:1");

  // A file on disk, through the scheme.
  const auto path = std::filesystem::temp_directory_path() / "seqfuse_test_align_matrix.txt";
  {
    std::ofstream out(path);
    out << "# tiny\n   A  C  G  T\nA  1 -1 -1 -1\nC -1  1 -1 -1\nG -1 -1  1 -1\nT -1 -1 -1  1\n";
  }
  const auto scheme = ScoringScheme::named_or_file(path.string(), {2, 1});
  CHECK(scheme.alphabet_size() == 4);
  CHECK(score_of(scheme, 'g', 'G') == 1);
  CHECK(scheme.name() == path.string());
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(ScoringScheme::from_matrix_file("/nonexistent/m.txt", {2, 1}),
                    "cannot open matrix file '/nonexistent/m.txt': No such file or directory");
  // A FIFO or a directory is refused at once (a FIFO used to block in open()).
  const auto fifo = std::filesystem::temp_directory_path() /
                    ("seqfuse_test_matrix_fifo_" + std::to_string(::getpid()));
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(ScoringScheme::from_matrix_file(fifo.string(), {2, 1}),
                    "matrix file '" + fifo.string() + "' is a FIFO, not a regular file");
  std::filesystem::remove(fifo);
  CHECK_THROWS_WITH(ScoringScheme::from_matrix_file("/tmp", {2, 1}),
                    "matrix file '/tmp' is a directory, not a regular file");
  CHECK(ScoringScheme::named_or_file("BLOSUM62", {11, 1}).name() == "blosum62");
  CHECK_THROWS_AS(ScoringScheme::named_or_file("nosuch", {11, 1}), seqfuse::UsageError);
}
