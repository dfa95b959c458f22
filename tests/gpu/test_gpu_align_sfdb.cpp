// A GPU search of a search database (.sfdb, `seqfuse align-db`) writes the
// bytes of the GPU search of its FASTA, and of the CPU search: resident,
// forced into parts (SEQFUSE_ALIGN_PART_RESIDUES), on two workers sharing
// one device (--device gpu:0,0), with --db-part, in every format. Runs the
// seqfuse binary beside this test, on fresh random inputs.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../unit/test_align_support.hpp"
#include "../unit/test_data.hpp"
#include "../unit/test_temp_dir.hpp"

namespace {

std::string random_fasta(std::mt19937_64& rng, std::size_t count, std::string_view letters,
                         std::size_t max_length) {
  std::uniform_int_distribution<std::size_t> length(0, max_length);
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  std::string text;
  for (std::size_t r = 0; r < count; ++r) {
    text += ">t" + std::to_string(r) + (r % 9 == 4 ? std::string(200, 'x') : "") + "\n";
    const std::size_t n = r % 13 == 6 ? 0 : 1 + length(rng);
    for (std::size_t k = 0; k < n; ++k) text += letters[pick(rng)];
    text += '\n';
  }
  return text;
}

// The output without SAM's @PG line (it holds the command line).
std::string run(const std::string& command, const std::filesystem::path& out) {
  INFO(command);
  REQUIRE(std::system((command + " -q -o " + out.string()).c_str()) == 0);
  std::string text = seqfuse::test::slurp(out);
  const std::size_t pg = text.find("@PG\t");
  if (pg != std::string::npos) text.erase(pg, text.find('\n', pg) - pg);
  return text;
}

}  // namespace

TEST_CASE("GPU search of a .sfdb equals the GPU and CPU search of its FASTA, parts included",
          "[gpu][align][sfdb]") {
  const std::filesystem::path sf =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() / "seqfuse";
  REQUIRE(std::filesystem::exists(sf));
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  seqfuse::test::TempDir dir;
  struct Set {
    std::string name, letters;
    std::size_t targets, max_length;
  };
  const std::vector<Set> sets = {{"protein", "ARNDCQEGHILKMFPSTWYV", 3000, 600},
                                 {"dna", "ACGT", 800, 2000}};
  for (const Set& set : sets) {
    const auto fasta = dir.file(set.name + ".fa"), db = dir.file(set.name + ".sfdb");
    const auto queries = dir.file(set.name + "_q.fa");
    std::ofstream(fasta) << random_fasta(rng, set.targets, set.letters, set.max_length);
    std::ofstream(queries) << random_fasta(rng, 40, set.letters, 300);
    REQUIRE(std::system(
                (sf.string() + " align-db -q " + fasta.string() + " -o " + db.string()).c_str()) ==
            0);
    // Parts of about a seventh of the set: the parts path, several parts.
    const std::string parts =
        "SEQFUSE_ALIGN_PART_RESIDUES=" + std::to_string(set.targets * set.max_length / 14) + " ";
    const std::vector<std::string> searches = {
        "align-sw " + queries.string() + " TARGET --top 10",
        "align-nw " + queries.string() + " TARGET --top 0 --format blast6",
        "align-sw " + queries.string() + " TARGET --top 5 --traceback --format sam",
        "align-sw " + queries.string() + " TARGET --top 3 --format csv --db-part 2/3",
    };
    for (const std::string& search : searches) {
      const auto with = [&](const std::filesystem::path& target) {
        std::string s = search;
        s.replace(s.find("TARGET"), 6, target.string());
        return sf.string() + " " + s;
      };
      const std::string cpu = run(with(fasta) + " --device cpu", dir.file("cpu"));
      REQUIRE(!cpu.empty());
      INFO(set.name << ": " << search);
      CHECK(run(with(fasta) + " --device gpu:0", dir.file("a")) == cpu);
      CHECK(run(with(db) + " --device gpu:0", dir.file("b")) == cpu);
      CHECK(run(parts + with(db) + " --device gpu:0", dir.file("c")) == cpu);
      CHECK(run(parts + with(fasta) + " --device gpu:0", dir.file("d")) == cpu);
      CHECK(run(with(db) + " --device gpu:0,0", dir.file("e")) == cpu);
      CHECK(run(parts + with(db) + " --device gpu:0,0", dir.file("f")) == cpu);
      CHECK(run(with(db) + " --device cpu", dir.file("g")) == cpu);
    }
  }
}
