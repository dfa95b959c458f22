// The shared k-mer packing (gpu/primitives/kmer_code.hpp) and its text form
// against plain strings: every window of random reads, for k at the word
// edges (1, 2, 31, 32, 33, 63).
#include <catch2/catch.hpp>
#include <string>

#include "kmer/kmer_text.hpp"
#include "kmer/reference.hpp"
#include "gpu/primitives/kmer_code.hpp"
#include "test_kmer_support.hpp"

using namespace seqfuse::kmer;

namespace {

bool all_bases(const std::string& s) {
  return s.find_first_not_of("ACGT") == std::string::npos;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c & ~0x20);
  return s;
}

template <int W>
std::string letters_of(const Kmer<W>& x, int k) {
  std::string s(static_cast<std::size_t>(k), ' ');
  kmer_to_letters(x, k, s.data());
  return s;
}

// Rolls over every read and checks each reported k-mer against the window
// it should be, and that a k-mer is reported exactly when the window is all bases.
template <int W>
void check_roller(const std::vector<std::string>& reads, int k) {
  const auto width = static_cast<std::size_t>(k);
  for (const std::string& read : reads) {
    KmerRoller<W> roller(k);
    for (std::size_t end = 1; end <= read.size(); ++end) {
      const bool reported = roller.push_letter(read[end - 1]);
      const std::string window = end >= width ? upper(read.substr(end - width, width)) : "";
      const bool expected = end >= width && all_bases(window);
      REQUIRE(reported == expected);
      if (!reported) continue;
      const std::string rc = reference_reverse_complement(window);
      REQUIRE(letters_of(roller.forward(), k) == window);
      REQUIRE(letters_of(roller.reverse_complement(), k) == rc);
      REQUIRE(letters_of(roller.canonical(), k) == std::min(window, rc));

      Kmer<W> parsed{};
      REQUIRE(kmer_from_letters(window.data(), k, parsed));
      REQUIRE(parsed == roller.forward());
      std::uint64_t words[2] = {0, 0};
      REQUIRE(parse_kmer(window, k, words));
      for (int w = 0; w < W; ++w) REQUIRE(words[w] == parsed.w[w]);
      char text[kMaxK];
      format_kmer(words, k, text);
      REQUIRE(std::string(text, width) == window);
      canonicalize(words, k);
      format_kmer(words, k, text);
      REQUIRE(std::string(text, width) == std::min(window, rc));
      // Numeric order is the order of the letters.
      Kmer<W> rc_packed{};
      REQUIRE(kmer_from_letters(rc.data(), k, rc_packed));
      REQUIRE((rc_packed < parsed) == (rc < window));
    }
  }
}

}  // namespace

TEST_CASE("k-mer packing, reverse complement and canonical form equal the string forms", "[kmer]") {
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::string> reads = test::random_reads(rng, 60, 300);
  for (int k : {1, 2, 31, 32}) {
    INFO("k=" << k);
    check_roller<1>(reads, k);
  }
  for (int k : {33, 63}) {
    INFO("k=" << k);
    check_roller<2>(reads, k);
  }
}

TEST_CASE("k-mer text parsing refuses wrong lengths and non-bases", "[kmer]") {
  std::uint64_t words[2] = {0, 0};
  CHECK(parse_kmer("acgt", 4, words));
  char text[4];
  format_kmer(words, 4, text);
  CHECK(std::string(text, 4) == "ACGT");
  CHECK_FALSE(parse_kmer("ACG", 4, words));
  CHECK_FALSE(parse_kmer("ACGTA", 4, words));
  CHECK_FALSE(parse_kmer("ACNT", 4, words));
  CHECK_FALSE(parse_kmer(std::string(64, 'A'), 64, words));
  // The largest 63-mer and the smallest: word edges.
  REQUIRE(parse_kmer(std::string(63, 'T'), 63, words));
  CHECK(words[0] == (std::uint64_t{1} << 62) - 1);
  CHECK(words[1] == ~std::uint64_t{0});
  canonicalize(words, 63);
  CHECK(words[0] == 0);
  CHECK(words[1] == 0);
}

TEST_CASE("dump lines are jellyfish dump -c lines", "[kmer]") {
  std::uint64_t words[4] = {0, 0, 0, 0};
  REQUIRE(parse_kmer("AACGT", 5, words));
  REQUIRE(parse_kmer("TTTTT", 5, words + 1));
  const std::uint32_t counts[2] = {7, 4294967295u};
  std::string text = "x";
  append_dump_lines(RecordBlock{5, words, counts, 2}, text);
  CHECK(text == "xAACGT 7\nTTTTT 4294967295\n");
}
