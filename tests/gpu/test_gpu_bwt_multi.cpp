// The suffix sort shared by several workers (src/bwt/gpu_multi_sort.cpp,
// `seqfuse bwt --device gpu:0,0,...`) against bwt::suffix_array_cpu
// (libdivsufsort) on fresh texts each run: one, two and three workers on
// GPU 0 (the multi-device code path on one card; the peer writes of
// different cards are checked by scripts/device-multi-gpu.sh), buckets
// forced small and from free memory; both strands from the packed bytes as
// the engine sends them; every output poisoned first. When the machine has
// a second GPU, gpu:0,1 too.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "../unit/test_bwt_support.hpp"
#include "../unit/test_data.hpp"
#include "bwt/gpu_multi_sort.hpp"
#include "bwt/sorted_suffixes.hpp"
#include "bwt/suffix_array.hpp"
#include "gpu/bwt/suffix_sort.hpp"
#include "gpu/runtime.hpp"

namespace gpu = seqfuse::gpu;
using namespace seqfuse::bwt::test;  // Text, random_text, periodic_text

namespace {

constexpr std::uint8_t kPoisonCode = 0xAB;
constexpr std::uint64_t kPoison = 0xABABABABABABABABull;

// The forward strand sorted with its reverse complement (or alone) on
// `devices`, against the CPU's rows of the codes.
void check(const Text& forward, bool both, std::uint32_t interval, const std::vector<int>& devices,
           std::uint64_t bucket_suffixes) {
  INFO("length " << forward.size() << (both ? ", both strands" : ", forward only") << ", interval "
                 << interval << ", " << devices.size() << " workers, buckets of "
                 << bucket_suffixes);
  std::vector<std::uint8_t> packed((forward.size() + 3) / 4 + 2, 0);
  for (std::size_t i = 0; i < forward.size(); ++i)
    packed[i / 4] = static_cast<std::uint8_t>(packed[i / 4] | forward[i] << (6 - 2 * (i % 4)));
  Text text = forward;
  if (both)
    for (std::size_t i = forward.size(); i-- > 0;) text.push_back(3 - forward[i]);
  std::vector<std::uint8_t> bwt(text.size() + 1, kPoisonCode);
  std::vector<std::uint64_t> samples(text.size() / interval + 1, kPoison);
  seqfuse::bwt::sort_on_devices(gpu::bwt::PackedCodes{packed, forward.size(), both},
                                {bwt, samples, interval, 3}, devices, bucket_suffixes);
  const auto expected =
      seqfuse::bwt::sorted_from_suffix_array(text, seqfuse::bwt::suffix_array_cpu(text), interval);
  const auto bad_row = std::mismatch(bwt.begin(), bwt.end(), expected.bwt.begin());
  INFO("first BWT difference at row " << (bad_row.first - bwt.begin()));
  CHECK(std::ranges::equal(bwt, expected.bwt));
  CHECK(std::ranges::equal(samples, expected.samples));
}

std::vector<std::vector<int>> device_lists() {
  std::vector<std::vector<int>> lists = {{0}, {0, 0}, {0, 0, 0}};
  if (gpu::device_count() > 1) lists.push_back({0, 1});
  return lists;
}

void check_lists(const Text& forward, std::uint64_t bucket_suffixes) {
  for (const auto& devices : device_lists())
    for (const bool both : {true, false})
      for (const std::uint32_t interval : {1u, 32u})
        check(forward, both, interval, devices, bucket_suffixes);
}

}  // namespace

TEST_CASE("GPU suffix sort across workers equals the CPU's", "[gpu][bwt]") {
  REQUIRE_FALSE(gpu::devices().empty());
  std::mt19937_64 rng(seqfuse::test::test_seed());
  SECTION("edge lengths") {
    // Buckets of at most 16 (fewer still as the split shares them out): a
    // bin may not hold more, and with both strands a reverse palindrome of
    // 8 characters puts two suffixes in one bin, two of them four.
    for (std::size_t n : {1, 2, 7, 21, 22, 43, 1000}) check_lists(random_text(rng, n), 16);
  }
  SECTION("random text, buckets forced small and from free memory") {
    const Text t = random_text(rng, 300'000);
    check_lists(t, 20'000);
    check_lists(t, 0);
  }
  SECTION("one letter repeated, periodic texts, a long repeat") {
    for (std::uint8_t c = 0; c < 4; ++c) check_lists(Text(5000, c), 0);
    for (std::size_t period : {2, 3, 22}) check_lists(periodic_text(rng, period, 20'000), 0);
    Text t = random_text(rng, 400'000);
    std::copy(t.begin() + 10, t.begin() + 10 + 100'000, t.end() - 100'007);
    check_lists(t, 50'000);
  }
  SECTION("a random 10 M-code text on two and three workers") {
    const Text t = random_text(rng, 10'000'000);
    for (const auto& devices : device_lists()) check(t, true, 32, devices, 1'500'000);
  }
}
