// The GPU's one-pass suffix sort (gpu/bwt/doubling_sort.cu) run on the
// CPU: the initial sort by 21 characters with the same shared functions of
// gpu/bwt/prefix_doubling.hpp (initial_key, group_head, group_of) and
// bucket_keys.hpp (still_tied, tied entries), then the doubling over the
// tied suffixes as test_bwt_emulation.hpp runs it; std::stable_sort in
// place of the device radix sorts and loops in place of the scans and the
// scatter kernels. Each result must equal bwt::suffix_array_cpu
// (libdivsufsort). CI runs it; [gpu][bwt] checks the kernels themselves.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bwt/suffix_array.hpp"
#include "gpu/bwt/bucket_keys.hpp"
#include "gpu/bwt/prefix_doubling.hpp"
#include "test_bwt_emulation.hpp"
#include "test_bwt_support.hpp"

namespace gb = seqfuse::gpu::bwt;
using namespace seqfuse::bwt::test;  // Text, random_text, periodic_text, the doubling

namespace {

using KeyFn = std::uint64_t (*)(const std::uint8_t*, std::uint64_t, std::uint64_t);

struct Emulation {
  std::vector<std::uint64_t> sa;
  std::uint64_t tied = 0;  // suffixes the initial sort left tied
  int rounds = 0;          // doubling rounds after the initial sort
};

// initial_sort, then refine_tied from depth 21 with the list in one chunk.
Emulation emulate(const Text& text, KeyFn first_key = gb::initial_key) {
  const std::uint64_t n = text.size();
  const std::uint64_t count = n + 1;
  std::vector<std::uint64_t> keys(count);
  for (std::uint64_t i = 0; i < count; ++i) keys[i] = first_key(text.data(), n, i);
  const std::vector<std::uint32_t> positions = stable_order(keys);
  std::vector<std::uint64_t> sorted_keys(count);
  for (std::uint64_t j = 0; j < count; ++j) sorted_keys[j] = keys[positions[j]];
  std::vector<std::uint32_t> heads(count), before(count), starts(count);
  std::uint32_t sum = 0;  // mark_heads_kernel, then exclusive_sum
  for (std::uint64_t j = 0; j < count; ++j) {
    heads[j] = gb::group_head(sorted_keys.data(), j);
    before[j] = sum;
    sum += heads[j];
  }
  for (std::uint64_t j = 0; j < count; ++j)  // group_starts_kernel
    if (heads[j] != 0) starts[before[j]] = static_cast<std::uint32_t>(j);
  std::vector<std::uint64_t> rank(count), tied;
  for (std::uint64_t j = 0; j < count; ++j) {  // first_ranks_kernel, tied_entries_kernel
    rank[positions[j]] = starts[gb::group_of(heads.data(), before.data(), j)];
    if (gb::still_tied(heads.data(), count, j) != 0)
      tied.push_back(gb::tied_entry(positions[j], heads[j] != 0));
  }
  Emulation out;
  out.tied = tied.size();
  out.rounds = double_tied(rank, std::move(tied), gb::kInitialChars, count);
  out.sa = suffix_array_from_ranks(rank);
  return out;
}

// Random text with a copy of a `repeat`-long stretch placed later.
Text repeat_text(std::mt19937_64& rng, std::size_t n, std::size_t repeat) {
  Text t = random_text(rng, n);
  std::copy(t.begin() + 10, t.begin() + 10 + repeat, t.end() - repeat - 7);
  return t;
}

// Packs characters i.. of a text as initial_key should, from plain string
// comparison: for checking the key's order on its own.
std::string window(const Text& t, std::size_t i) {
  std::string s;
  for (std::size_t k = i; k < t.size() && s.size() < gb::kInitialChars; ++k)
    s.push_back(static_cast<char>('1' + t[k]));
  return s;
}

// '$' coded above the letters: a key that must fail.
std::uint64_t dollar_largest_key(const std::uint8_t* text, std::uint64_t n, std::uint64_t i) {
  std::uint64_t key = 0;
  for (int k = 0; k < gb::kInitialChars; ++k)
    key = (key << 3) | (i + k < n ? text[i + k] + 1u : 7u);
  return key;
}

void check(const Text& text) {
  INFO("length " << text.size());
  const auto expected = seqfuse::bwt::suffix_array_cpu(text);
  REQUIRE(expected.size() == text.size() + 1);
  CHECK(same(emulate(text).sa, expected));
}

}  // namespace

TEST_CASE("initial_key orders 21-character windows with '$' smallest", "[bwt][emulated]") {
  std::mt19937_64 rng(0x5eed);
  const Text t = periodic_text(rng, 3, 60);
  const std::uint64_t n = t.size();
  CHECK(gb::initial_key(t.data(), n, n) == 0);
  const Text r = random_text(rng, 200);
  for (std::size_t a = 0; a <= r.size(); ++a)
    for (std::size_t b = 0; b <= r.size(); b += 7) {
      const auto ka = gb::initial_key(r.data(), r.size(), a);
      const auto kb = gb::initial_key(r.data(), r.size(), b);
      const auto wa = window(r, a), wb = window(r, b);
      // A shorter window is a suffix ending early: '$' makes it smaller.
      CHECK((ka < kb) == (wa < wb));
      CHECK((ka == kb) == (wa == wb && (a == b || wa.size() == gb::kInitialChars)));
    }
  CHECK(gb::rank_bits(0) == 0);
  CHECK(gb::rank_bits(1) == 1);
  CHECK(gb::rank_bits(10'000'000) == 24);
  CHECK(gb::rank_bits((std::uint64_t{1} << 32) - 2) == 32);
}

TEST_CASE("prefix doubling emulated equals the CPU suffix array", "[bwt][emulated]") {
  std::mt19937_64 rng(20261125);
  SECTION("random texts of edge lengths") {
    for (std::size_t n : {0, 1, 2, 20, 21, 22, 42, 43, 1000})
      for (int rep = 0; rep < 4; ++rep) check(random_text(rng, n));
  }
  SECTION("one letter repeated: many doubling rounds") {
    for (std::uint8_t c = 0; c < 4; ++c) {
      const Text t(5000, c);
      const auto e = emulate(t);
      CHECK(same(e.sa, seqfuse::bwt::suffix_array_cpu(t)));
      CHECK(e.rounds == 8);  // ceil(log2(5000 / 21)): the longest repeat is 4999
    }
  }
  SECTION("periodic texts") {
    for (std::size_t period : {2, 3, 7, 21, 22})
      for (std::size_t n : {period, 2 * period + 1, std::size_t{500}, std::size_t{3001}})
        check(periodic_text(rng, period, n));
  }
  SECTION("a long repeat") {
    const Text t = repeat_text(rng, 20000, 3000);
    const auto e = emulate(t);
    CHECK(same(e.sa, seqfuse::bwt::suffix_array_cpu(t)));
    CHECK(e.rounds >= 8);
    // Only the repeat's suffixes (about 2 x 3000) take part in the rounds.
    CHECK(e.tied < 6100);
  }
  SECTION("short texts, every one of lengths 0..6") {
    for (std::size_t n = 0; n <= 6; ++n)
      for (std::size_t x = 0; x < (std::size_t{1} << (2 * n)); ++x) {
        Text t;
        for (std::size_t i = 0; i < n; ++i)
          t.push_back(static_cast<std::uint8_t>((x >> (2 * i)) & 3));
        check(t);
      }
  }
}

TEST_CASE("the emulation fails with '$' coded above the letters", "[bwt][emulated]") {
  std::mt19937_64 rng(7);
  for (const Text& t : {Text{0, 0}, periodic_text(rng, 2, 40), random_text(rng, 100)})
    CHECK_FALSE(same(emulate(t, dollar_largest_key).sa, seqfuse::bwt::suffix_array_cpu(t)));
}
