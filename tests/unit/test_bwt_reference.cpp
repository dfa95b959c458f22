// The reference packing of `seqfuse bwt` against `bwa index` 0.7.17 itself:
// .pac, .ann and .amb must be byte-identical for the lambda phage
// (bowtie2-examples), E. coli MG1655 (ragout-examples), the multi-record
// fixture tests/data/bwt/multi.fa (comments, lowercase, N runs of mixed case,
// IUPAC codes, gaps, U, a one-base record, a record ending in N) and random
// small FASTAs. Cases needing bwa are skipped with a warning when it is not
// installed (CI installs it), as are those needing an absent example package.
//
// What these tests pin down about bwa index:
//  - ambiguous letters become lrand48() & 3 after srand48(11), drawn in file
//    order; a run in .amb continues only over the very same byte, so "Nn" is
//    two runs; runs restart at every record;
//  - .ann's first line holds the forward length, records and seed 11; each
//    record "0 name comment" ("(null)" without one) then offset, length, runs;
//  - the final .pac is forward only, ceil(n / 4) bytes then a zero byte when
//    n % 4 == 0, then n % 4.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bwt/bwa_random.hpp"
#include "bwt/reference_pack.hpp"
#include "core/error.hpp"
#include "test_bwt_support.hpp"
#include "test_data.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::bwt;
namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

using seqfuse::bwt::test::bwa_available;

struct IndexFiles {
  std::string pac, ann, amb;
};

IndexFiles bwa_index(const fs::path& fasta, const TempDir& scratch) {
  const fs::path prefix = scratch.file("bwa");
  const std::string command = "bwa index -p '" + prefix.string() + "' '" + fasta.string() + "' >'" +
                              scratch.file("bwa.log").string() + "' 2>&1";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  return {slurp(prefix.string() + ".pac"), slurp(prefix.string() + ".ann"),
          slurp(prefix.string() + ".amb")};
}

IndexFiles ours(const PackedReference& ref) {
  std::ostringstream pac, ann, amb;
  write_pac(ref, pac);
  write_ann(ref, ann);
  write_amb(ref, amb);
  return {pac.str(), ann.str(), amb.str()};
}

// "" when equal, else where they first differ: a failure then prints a line,
// not two copies of a megabyte file.
std::string first_difference(const std::string& mine, const std::string& bwa) {
  if (mine == bwa) return "";
  std::size_t i = 0;
  while (i < mine.size() && i < bwa.size() && mine[i] == bwa[i]) ++i;
  return "sizes " + std::to_string(mine.size()) + " vs bwa's " + std::to_string(bwa.size()) +
         ", first difference at byte " + std::to_string(i);
}

void require_same_as_bwa(const fs::path& fasta) {
  INFO(fasta.string());
  TempDir scratch;
  const IndexFiles mine = ours(pack_reference(fasta.string()));
  const IndexFiles theirs = bwa_index(fasta, scratch);
  CHECK(first_difference(mine.pac, theirs.pac) == "");
  CHECK(mine.ann == theirs.ann);
  CHECK(mine.amb == theirs.amb);
}

// The first path listed by `dpkg -L package` that ends in `suffix`, or "".
fs::path packaged_file(const std::string& package, const std::string& suffix) {
  const std::string command = "dpkg -L " + package + " 2>/dev/null | grep -- '" + suffix + "$'";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  char line[4096] = {};
  std::string path = std::fgets(line, sizeof line, pipe) != nullptr ? line : "";
  ::pclose(pipe);
  while (!path.empty() && path.back() == '\n') path.pop_back();
  return path.empty() || !fs::exists(path) ? fs::path{} : fs::path(path);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("BwaRandom draws glibc's srand48/lrand48 numbers", "[bwt]") {
  // From glibc 2.x: srand48(11) then lrand48() (a C program run once).
  const std::vector<std::uint32_t> seed11 = {1609868485, 1074594562, 470884846, 2128573038,
                                             960673312,  346697164,  303961605, 444770020};
  BwaRandom random;
  for (const std::uint32_t expected : seed11) CHECK(random.next() == expected);
  BwaRandom zero(0);
  CHECK(zero.next() == 366850414u);
  CHECK(zero.next() == 1610402240u);
  CHECK(zero.next() == 206956554u);
  // Far along: the sum of the first 10^6 draws & 3, then the next draw.
  BwaRandom far;
  std::uint64_t sum = 0;
  for (int i = 0; i < 1000000; ++i) sum += far.next_base();
  CHECK(sum == 1499788u);
  CHECK(far.next() == 23275212u);
}

TEST_CASE("both_strands appends the reverse complement", "[bwt]") {
  PackedReference ref;
  ref.bases = {0, 1, 2, 2, 3, 0};                                 // ACGGTA
  const std::vector<std::uint8_t> expected = {0, 1, 2, 2, 3, 0,   // ACGGTA
                                              3, 0, 1, 1, 2, 3};  // TACCGT
  CHECK(seqfuse::bwt::test::same(both_strands(ref), expected));
  ref.bases = {2};
  CHECK(seqfuse::bwt::test::same(both_strands(ref), std::vector<std::uint8_t>{2, 1}));
  ref.bases.clear();
  CHECK(both_strands(ref).empty());
}

TEST_CASE("write_pac packs 4 bases a byte, first in the high bits, and ends as bwa", "[bwt]") {
  PackedReference ref;
  auto pac_of = [&](std::initializer_list<std::uint8_t> bases) {
    ref.bases.assign(bases);
    std::ostringstream out;
    write_pac(ref, out);
    return out.str();
  };
  CHECK(pac_of({3}) == std::string("\xC0\x01", 2));
  CHECK(pac_of({0, 1, 2}) == std::string("\x18\x03", 2));
  CHECK(pac_of({0, 1, 2, 3}) == std::string("\x1B\x00\x00", 3));
  CHECK(pac_of({3, 2, 1, 0, 1}) == std::string("\xE4\x40\x01", 3));
}

TEST_CASE("pack_reference records names, comments, offsets and runs as bwa", "[bwt]") {
  const PackedReference ref = pack_reference((seqfuse::test::data_dir() / "bwt/multi.fa").string());
  REQUIRE(ref.records.size() == 7);
  CHECK(ref.records[0].name == "chr1");
  CHECK(ref.records[0].comment == "Escherichia coli fragment, plain comment");
  CHECK(ref.records[0].ambiguous_runs == 4);  // N*10, then nnnn NNNN nn
  CHECK(ref.records[1].comment.empty());
  CHECK(ref.records[2].length == 1);
  CHECK(ref.records[2].offset == ref.records[1].offset + ref.records[1].length);
  CHECK(ref.records[3].comment == "comment after a tab");
  CHECK(ref.holes.back().letter == 'N');
  CHECK(ref.holes.back().offset + 1 == ref.bases.size());
  for (const std::uint8_t code : ref.bases) REQUIRE(code < 4);
}

TEST_CASE("pack_reference files are byte-identical to bwa index on real genomes", "[bwt]") {
  if (!bwa_available()) {
    WARN("bwa is not on PATH; skipping the comparison with bwa index");
    return;
  }
  SECTION("multi-record fixture") {
    require_same_as_bwa(seqfuse::test::data_dir() / "bwt/multi.fa");
  }
  SECTION("lambda phage (bowtie2-examples)") {
    const fs::path lambda = packaged_file("bowtie2-examples", "lambda_virus.fa.gz");
    if (lambda.empty()) {
      WARN("bowtie2-examples is not installed; skipping lambda");
      return;
    }
    require_same_as_bwa(lambda);
  }
  SECTION("E. coli MG1655 (ragout-examples)") {
    const fs::path ecoli = packaged_file("ragout-examples", "MG1655-K12.fasta.gz");
    if (ecoli.empty()) {
      WARN("ragout-examples is not installed; skipping E. coli MG1655");
      return;
    }
    require_same_as_bwa(ecoli);
  }
}

TEST_CASE("pack_reference files are byte-identical to bwa index on random FASTAs", "[bwt]") {
  if (!bwa_available()) {
    WARN("bwa is not on PATH; skipping the comparison with bwa index");
    return;
  }
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  // Mostly bases, with ambiguous letters often enough to form runs.
  const std::string letters = "ACGTACGTACGTacgtacgtNNNNnnRYKMSWBDHVUu-";
  TempDir scratch;
  for (int round = 0; round < 16; ++round) {
    std::string text;
    bool has_base = false;
    const std::size_t records = 1 + pick(4);
    for (std::size_t r = 0; r < records; ++r) {
      // (Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "r" + std::to_string(r).)
      text.append(">r").append(std::to_string(r));
      if (pick(2) == 0) text.append(pick(2) == 0 ? " c " : "\tc ").append(std::to_string(r));
      text += '\n';
      const std::size_t length = 1 + pick(r == 0 && round < 8 ? 8 : 40);  // short ones: every n % 4
      const std::size_t width = 1 + pick(20);
      char previous = 'A';
      for (std::size_t i = 0; i < length; ++i) {
        const char c = pick(3) == 0 && i > 0 ? previous : letters[pick(letters.size())];
        previous = c;
        has_base |= std::string_view("ACGTacgt").find(c) != std::string_view::npos;
        text += c;
        if ((i + 1) % width == 0 || i + 1 == length) text += '\n';
      }
    }
    INFO("round " << round << ":\n" << text);
    const fs::path fasta =
        scratch.file(std::string("r").append(std::to_string(round)).append(".fa"));
    write_text(fasta, text);
    if (!has_base) {
      CHECK_THROWS_WITH(pack_reference(fasta.string()), Catch::Contains("no A, C, G or T"));
      continue;
    }
    require_same_as_bwa(fasta);
  }
}

TEST_CASE("pack_reference refuses input bwa would index into noise", "[bwt]") {
  TempDir scratch;
  const fs::path fasta = scratch.file("bad.fa");
  auto refusal = [&](const std::string& text) -> std::string {
    write_text(fasta, text);
    try {
      (void)pack_reference(fasta.string());
    } catch (const seqfuse::Error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  using Catch::Contains;
  // No records at all is valid, as for bwa index: an index of nothing (run_bwt).
  CHECK(refusal("") == "(accepted)");
  CHECK(refusal("\n\n") == "(accepted)");
  write_text(fasta, "");
  const PackedReference nothing = pack_reference(fasta.string());
  CHECK(nothing.bases.empty());
  CHECK(nothing.records.empty());
  CHECK_THAT(refusal(">a\nACGT\n>b x\n>c\nACGT\n"),
             Contains("bad.fa") && Contains("record 2 'b'") && Contains("no bases"));
  CHECK_THAT(refusal(">a\nNNNN\n>b\nnnRY\n"), Contains("bad.fa") && Contains("no A, C, G or T"));
  CHECK_THAT(refusal(">a\nACGT\n>prot\nMKVLAAGIVG\n"),
             Contains("record 2 'prot'") && Contains("'L' at base 4"));
  CHECK_THAT(refusal(">a\nACGT*\n"), Contains("'*' at base 5"));
  CHECK_THAT(refusal(">a\nAC GT\n"), Contains("' ' at base 3"));
  CHECK_THAT(refusal(">a\nACGTX\n"), Contains("not a nucleotide code"));
  CHECK(refusal(">a\nACGTN\n") == "(accepted)");
}

TEST_CASE("a plain FASTA packed on threads equals a gzip one read in one stream", "[bwt]") {
  // About 12 Mbp in 40 records with N runs, IUPAC letters and lowercase, so
  // the parallel parser cuts several slices and the coder several chunks.
  std::mt19937_64 rng(seqfuse::test::test_seed());
  TempDir scratch;
  const fs::path plain = scratch.path() / "genome.fa";
  {
    std::ofstream out(plain);
    const std::string letters = "ACGTACGTacgtNNNNnRYKM";
    for (int r = 0; r < 40; ++r) {
      out << ">rec" << r << (r % 3 ? " comment\there" : "") << "\n";
      const std::size_t length = 1 + rng() % 600000;
      std::string seq(length, 'A');
      for (auto& c : seq) c = letters[rng() % 8];
      for (int run = 0; run < 20; ++run) {  // runs of one ambiguous letter
        const std::size_t at = rng() % length, len = 1 + rng() % 300;
        const char letter = letters[12 + rng() % 9];
        for (std::size_t i = at; i < std::min(length, at + len); ++i) seq[i] = letter;
      }
      for (std::size_t i = 0; i < length; i += 70) out << seq.substr(i, 70) << "\n";
    }
  }
  const fs::path gz = scratch.path() / "genome.fa.gz";
  REQUIRE(std::system(("gzip -c '" + plain.string() + "' > '" + gz.string() + "'").c_str()) == 0);
  const PackedReference threaded = pack_reference(plain.string(), 4);
  const PackedReference streamed = pack_reference(gz.string(), 1);
  REQUIRE(threaded.records.size() == streamed.records.size());
  for (std::size_t r = 0; r < threaded.records.size(); ++r) {
    CHECK(threaded.records[r].name == streamed.records[r].name);
    CHECK(threaded.records[r].comment == streamed.records[r].comment);
    CHECK(threaded.records[r].offset == streamed.records[r].offset);
    CHECK(threaded.records[r].ambiguous_runs == streamed.records[r].ambiguous_runs);
  }
  REQUIRE(threaded.holes.size() == streamed.holes.size());
  for (std::size_t h = 0; h < threaded.holes.size(); ++h) {
    CHECK(threaded.holes[h].offset == streamed.holes[h].offset);
    CHECK(threaded.holes[h].length == streamed.holes[h].length);
    CHECK(threaded.holes[h].letter == streamed.holes[h].letter);
  }
  CHECK(threaded.bases == streamed.bases);
}
