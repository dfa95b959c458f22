// bwt: the CPU suffix array against a naive sort of suffixes, the bwa-format
// index against the text it came from (inverse BWT, sampled SA, occurrence
// blocks counted by hand), the raw format on a worked example, and the .bwt
// and .sa files against `bwa index` 0.7.17 byte for byte (skipped with a
// warning when bwa is not installed; CI installs it).
//
// The bwa comparisons use ACGT-only FASTAs, so the text is built here: the
// records' letters as A0 C1 G2 T3, concatenated, then the reverse complement
// of the whole (what bwa indexes); no FASTA packing code is needed.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bwt/bwa_index_files.hpp"
#include "bwt/raw_files.hpp"
#include "bwt/suffix_array.hpp"
#include "core/error.hpp"
#include "test_bwt_support.hpp"
#include "test_data.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::bwt;
namespace fs = std::filesystem;

namespace {

using namespace seqfuse::bwt::test;  // Text, random_text, bwa_available

// Every suffix sorted by plain comparison; a proper prefix sorts first,
// which is what an implicit smallest '$' means.
std::vector<std::uint64_t> naive_suffix_array(const Text& text) {
  std::vector<std::uint64_t> sa(text.size() + 1);
  for (std::uint64_t i = 0; i < sa.size(); ++i) sa[i] = i;
  std::sort(sa.begin(), sa.end(), [&](std::uint64_t a, std::uint64_t b) {
    return std::lexicographical_compare(text.begin() + static_cast<std::ptrdiff_t>(a), text.end(),
                                        text.begin() + static_cast<std::ptrdiff_t>(b), text.end());
  });
  return sa;
}

Text periodic_text(std::size_t length, const Text& period) {
  Text text(length);
  for (std::size_t i = 0; i < length; ++i) text[i] = period[i % period.size()];
  return text;
}

std::string letters(const Text& text) {
  std::string s;
  for (auto c : text) s.push_back("ACGT"[c]);
  return s;
}

// The BWT character at position j of bwa's '$'-free BWT, read the way bwa's
// bwt_B0 macro reads it (a second, independent spelling of the layout).
unsigned bwa_char(const BwaIndex& index, std::uint64_t j) {
  const std::uint32_t word = index.bwt_words[((j >> 7) << 4) + 8 + ((j & 0x7f) >> 4)];
  return word >> ((~j & 0xf) << 1) & 3;
}

// Everything an index built from `text` must satisfy, checked against the
// naive suffix array.
void check_index(const Text& text, std::span<const std::uint64_t> sa, std::uint32_t interval) {
  const std::uint64_t n = text.size();
  const BwaIndex index = build_bwa_index(text, sa, interval);
  CHECK(index.seq_len == n);
  CHECK(sa[index.primary] == 0);
  CHECK(index.bwt_words.size() == (n + 15) / 16 + ((n + 127) / 128 + 1) * 8);
  std::array<std::uint64_t, 4> seen{};
  for (std::uint64_t j = 0; j <= n; ++j) {
    if (j % 128 == 0) {  // the block before position j (and the one after the end)
      // The block after the end follows the last word, even a partial interval's.
      const std::uint32_t* block =
          index.bwt_words.data() + (j < n ? (j / 128) * 16 : index.bwt_words.size() - 8);
      for (int c = 0; c < 4; ++c)
        REQUIRE((block[2 * c] | std::uint64_t{block[2 * c + 1]} << 32) == seen[c]);
    }
    if (j == n) break;
    const std::uint64_t row = j + (j >= index.primary);
    const unsigned c = bwa_char(index, j);
    REQUIRE(c == text[sa[row] - 1]);
    ++seen[c];
  }
  CHECK(index.counts_before[0] == seen[0]);
  CHECK(index.counts_before[3] == n);
  REQUIRE(index.samples.size() == n / interval + 1);
  for (std::size_t k = 0; k < index.samples.size(); ++k)
    REQUIRE(index.samples[k] == sa[k * interval]);
  CHECK(inverse_bwt(index) == text);
  // The raw BWT text is bwa's BWT with the '$' put back at the primary row.
  std::ostringstream raw;
  write_raw_bwt_text(sorted_from_suffix_array(text, {sa.begin(), sa.end()}, 1).bwt, raw);
  std::string expected;
  for (std::uint64_t j = 0; j < n; ++j) {
    if (j == index.primary) expected.push_back('$');
    expected.push_back("ACGT"[bwa_char(index, j)]);
  }
  if (index.primary == n) expected.push_back('$');
  CHECK(raw.str() == expected);
}

void check_text(const Text& text) {
  INFO("length " << text.size() << ": " << letters(text).substr(0, 80));
  const auto sa = suffix_array_cpu(text);
  REQUIRE(same(sa, naive_suffix_array(text)));
  for (std::uint32_t interval : {1u, 4u, 32u}) check_index(text, sa, interval);
}

// --- bwa -------------------------------------------------------------------

struct Record {
  std::string name;
  std::string seq;  // ACGT only
};

void write_fasta(const fs::path& path, const std::vector<Record>& records) {
  std::ofstream out(path);
  for (const auto& r : records) {
    out << '>' << r.name << '\n';
    for (std::size_t i = 0; i < r.seq.size(); i += 60) out << r.seq.substr(i, 60) << '\n';
  }
}

std::vector<Record> read_fasta(const fs::path& path) {
  std::ifstream in(path);
  std::vector<Record> records;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '>')
      records.push_back({line.substr(1), {}});
    else if (!records.empty())
      records.back().seq += line;
  }
  return records;
}

// What bwa indexes: the records' bases, then the reverse complement of all.
Text bwa_text(const std::vector<Record>& records) {
  Text forward;
  for (const auto& r : records)
    for (char ch : r.seq) {
      const auto code = std::string_view("ACGT").find(ch);
      REQUIRE(code != std::string_view::npos);  // these tests need ACGT-only input
      forward.push_back(static_cast<std::uint8_t>(code));
    }
  Text text = forward;
  for (auto it = forward.rbegin(); it != forward.rend(); ++it)
    text.push_back(static_cast<std::uint8_t>(3 - *it));
  return text;
}

// Byte offset of the first difference, or -1 when equal.
long first_difference(const std::string& a, const std::string& b) {
  const auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (m.first == a.end() && m.second == b.end()) return -1;
  return static_cast<long>(m.first - a.begin());
}

// Runs `bwa index <options> -p DIR/x FASTA` and compares our .bwt and .sa.
void compare_with_bwa(const seqfuse::test::TempDir& dir, const fs::path& fasta,
                      const std::string& options = "") {
  const fs::path prefix = dir.path() / "x";
  const std::string command = "bwa index " + options + " -p '" + prefix.string() + "' '" +
                              fasta.string() + "' >'" + dir.file("bwa.log").string() + "' 2>&1";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  const Text text = bwa_text(read_fasta(fasta));
  const BwaIndex index = build_bwa_index(text, suffix_array_cpu(text), 32, 2);
  std::ostringstream bwt, sa;
  write_bwa_bwt(index, bwt);
  write_bwa_sa(index, sa);
  const std::string bwa_bwt = seqfuse::test::slurp(prefix.string() + ".bwt");
  const std::string bwa_sa = seqfuse::test::slurp(prefix.string() + ".sa");
  CHECK(bwt.str().size() == bwa_bwt.size());
  CHECK(first_difference(bwt.str(), bwa_bwt) == -1);
  CHECK(sa.str().size() == bwa_sa.size());
  CHECK(first_difference(sa.str(), bwa_sa) == -1);
}

const fs::path kLambda = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";

}  // namespace

TEST_CASE("suffix array equals a naive sort; inverse BWT gives the text back", "[bwt]") {
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  check_text({});
  for (std::uint8_t c = 0; c < 4; ++c) check_text({c});
  for (std::size_t length : {2, 15, 16, 17, 127, 128, 129, 256, 2048}) {
    check_text(random_text(rng, length));
    check_text(periodic_text(length, {0}));  // all one letter
    check_text(periodic_text(length, {3}));
    check_text(periodic_text(length, {0, 1}));  // ACAC...
    check_text(periodic_text(length, {2, 3, 3, 0, 1}));
  }
  for (int round = 0; round < 20; ++round) check_text(random_text(rng, 1 + rng() % 3000));
}

TEST_CASE("bwa index built on threads equals one built on one thread", "[bwt]") {
  std::mt19937_64 rng(seqfuse::test::test_seed());
  // Several parallel chunks of 4096 intervals, the last one partial.
  const Text text = random_text(rng, 3 * 4096 * 128 + 77);
  const auto sa = suffix_array_cpu(text, 3);
  const BwaIndex one = build_bwa_index(text, sa, 32, 1);
  const BwaIndex three = build_bwa_index(text, sa, 32, 3);
  CHECK(one.primary == three.primary);
  CHECK(one.counts_before == three.counts_before);
  CHECK(one.bwt_words == three.bwt_words);
  CHECK(one.samples == three.samples);
  CHECK(inverse_bwt(three) == text);
}

TEST_CASE("bad input to the bwa index builder is refused", "[bwt]") {
  const Text text = {0, 1, 2, 3, 0};
  const auto sa = suffix_array_cpu(text);
  CHECK_THROWS_AS(build_bwa_index(text, sa, 3), seqfuse::Error);  // not a power of 2
  CHECK_THROWS_AS(build_bwa_index(text, sa, 0), seqfuse::Error);
  CHECK_THROWS_AS(build_bwa_index(text, std::span(sa).first(5), 32), seqfuse::Error);
  Text bad = text;
  bad[2] = 4;
  CHECK_THROWS_AS(build_bwa_index(bad, sa, 32), seqfuse::Error);
  BwaIndex index = build_bwa_index(text, sa, 32);
  index.bwt_words.pop_back();
  CHECK_THROWS_AS(inverse_bwt(index), seqfuse::Error);
}

TEST_CASE("raw format: BWT text, little-endian suffix array, JSON", "[bwt]") {
  // ACA$: suffixes $ (3), A$ (2), ACA$ (0), CA$ (1); BWT A C $ A.
  const Text text = {0, 1, 0};
  const auto sa = suffix_array_cpu(text);
  REQUIRE(same(sa, std::vector<std::uint64_t>{3, 2, 0, 1}));
  const SortedSuffixes sorted = sorted_from_suffix_array(text, sa, 1);
  CHECK(sorted.primary == 2);
  CHECK(sorted.samples == sa);
  std::ostringstream bwt, raw_sa, json;
  write_raw_bwt_text(sorted.bwt, bwt);
  CHECK(bwt.str() == "AC$A");
  write_raw_sa(sa, raw_sa);
  const std::string bytes = raw_sa.str();
  REQUIRE(bytes.size() == 32);
  CHECK(bytes.substr(0, 8) == std::string("\x03\0\0\0\0\0\0\0", 8));
  CHECK(bytes.substr(24, 8) == std::string("\x01\0\0\0\0\0\0\0", 8));
  write_raw_json(2, 4, json);
  CHECK(json.str().find("\"primary\": 2,") != std::string::npos);
  CHECK(json.str().find("\"length\": 4,") != std::string::npos);
}

TEST_CASE("bwa-format files are byte-identical to bwa index on random FASTAs", "[bwt]") {
  if (!bwa_available()) {
    WARN("bwa is not on PATH; skipping the comparison with bwa index");
    return;
  }
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::vector<std::size_t>> layouts = {
      {1},    {2},      {127},     {128},           {129},           {1000},
      {5000}, {64, 64}, {1, 1, 1}, {3, 500, 1, 77}, {1000, 4000, 17}};
  for (const auto& lengths : layouts) {
    std::vector<Record> records;
    for (std::size_t length : lengths) {
      // (Name built by append: GCC 12 warns falsely (-Wrestrict) on "r" + std::to_string(k).)
      std::string name = "r";
      name.append(std::to_string(records.size()));
      records.push_back({name, letters(random_text(rng, length))});
    }
    INFO("records " << records.size() << ", first length " << lengths[0]);
    seqfuse::test::TempDir dir;
    write_fasta(dir.file("in.fa"), records);
    compare_with_bwa(dir, dir.file("in.fa"));
  }
}

TEST_CASE("bwa-format files are byte-identical to bwa index on lambda (is and bwtsw)", "[bwt]") {
  if (!bwa_available() || !fs::exists(kLambda)) {
    WARN("bwa or bowtie2-examples' lambda genome is missing; skipping the comparison");
    return;
  }
  seqfuse::test::TempDir dir;
  const fs::path fasta = dir.file("lambda.fa");
  REQUIRE(std::system(("gzip -dc '" + kLambda.string() + "' >'" + fasta.string() + "'").c_str()) ==
          0);
  REQUIRE(bwa_text(read_fasta(fasta)).size() == 2 * 48502);
  for (const std::string algorithm : {"is", "bwtsw"}) {
    INFO("bwa index -a " << algorithm);
    compare_with_bwa(dir, fasta, "-a " + algorithm);
  }
}
