// fastq-trim's writer stage (src/preprocess/write_behind.hpp): every lane
// writes the groups in the order submitted, a buffer is never filled while a
// lane still writes it, and an error on either side ends the run without a
// hang: a failed write comes back to the caller, a caller that throws stops
// the lanes.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "preprocess/write_behind.hpp"

using seqfuse::preprocess::WriteBehind;

namespace {

constexpr std::size_t kBuffers = 2;
constexpr std::size_t kLanes = 3;

// Lanes that take a random little while, so that orders get mixed up if
// anything lets them.
struct SlowLanes {
  std::array<int, kBuffers> group{};                 // what each buffer holds
  std::array<std::atomic<int>, kBuffers> writing{};  // lanes writing each buffer now
  std::vector<std::vector<int>> written =
      std::vector<std::vector<int>>(kLanes);  // per lane, groups in write order
  std::atomic<int> writes{0};

  void write(std::size_t buffer, std::size_t lane) {
    ++writing[buffer];
    thread_local std::mt19937 rng{static_cast<unsigned>(lane) + 7};
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 300)(rng)));
    written[lane].push_back(group[buffer]);
    ++writes;
    --writing[buffer];
  }
};

}  // namespace

TEST_CASE("write-behind: every lane writes the groups in order", "[preprocess]") {
  SlowLanes lanes;
  constexpr int kGroups = 200;
  {
    WriteBehind writer(kBuffers, kLanes, [&](std::size_t b, std::size_t l) { lanes.write(b, l); });
    for (int g = 0; g < kGroups; ++g) {
      const std::size_t buffer = writer.acquire();
      REQUIRE(buffer < kBuffers);
      // A buffer handed out is one no lane is writing.
      REQUIRE(lanes.writing[buffer].load() == 0);
      lanes.group[buffer] = g;
      writer.submit(buffer);
    }
    writer.finish();
  }
  std::vector<int> expected(kGroups);
  for (int g = 0; g < kGroups; ++g) expected[static_cast<std::size_t>(g)] = g;
  for (const std::vector<int>& lane : lanes.written) CHECK(lane == expected);
}

TEST_CASE("write-behind: nothing submitted, or never finished", "[preprocess]") {
  int writes = 0;
  {
    WriteBehind writer(1, 1, [&](std::size_t, std::size_t) { ++writes; });
    writer.finish();
  }
  {
    // Destroyed without finish(): the lanes end (no hang).
    WriteBehind writer(1, 2, [&](std::size_t, std::size_t) {});
    writer.submit(writer.acquire());
  }
  CHECK(writes == 0);
  CHECK_THROWS_AS(WriteBehind(0, 1, [](std::size_t, std::size_t) {}), std::invalid_argument);
}

TEST_CASE("write-behind: a failed write comes back to the caller", "[preprocess]") {
  constexpr int kFailAt = 5;
  SlowLanes lanes;
  std::atomic<int> after_failure{0};
  std::atomic<bool> failed{false};
  int submitted = 0;
  const auto fill_and_write = [&](bool finish) {
    WriteBehind writer(kBuffers, kLanes, [&](std::size_t b, std::size_t l) {
      if (failed) ++after_failure;
      if (l == 1 && lanes.group[b] == kFailAt) {
        failed = true;
        throw std::runtime_error("cannot write 'o2.fq': No space left on device");
      }
      lanes.write(b, l);
    });
    for (int g = 0; finish ? g <= kFailAt : g < 1000; ++g) {
      const std::size_t buffer = writer.acquire();
      lanes.group[buffer] = g;
      writer.submit(buffer);
      ++submitted;
    }
    writer.finish();
  };
  SECTION("seen at acquire() or submit() while groups keep coming") {
    CHECK_THROWS_WITH(fill_and_write(false), "cannot write 'o2.fq': No space left on device");
    // Two buffers: the caller learns of it within a few groups.
    CHECK(submitted <= kFailAt + static_cast<int>(kBuffers) + 1);
  }
  SECTION("seen at finish() after the last group") {
    CHECK_THROWS_WITH(fill_and_write(true), "cannot write 'o2.fq': No space left on device");
  }
  // The failing lane wrote nothing from the failed group on.
  for (const int g : lanes.written[1]) CHECK(g < kFailAt);
  // Other lanes stop before their next buffer: at most the one in hand.
  CHECK(after_failure.load() <= static_cast<int>(kLanes));
}

TEST_CASE("write-behind: a caller that throws stops the lanes", "[preprocess]") {
  SlowLanes lanes;
  std::atomic<bool> slow_write_started{false};
  const auto trim_and_fail = [&] {
    WriteBehind writer(kBuffers, kLanes, [&](std::size_t b, std::size_t l) {
      slow_write_started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      lanes.write(b, l);
    });
    for (int g = 0; g < 2; ++g) {
      const std::size_t buffer = writer.acquire();
      lanes.group[buffer] = g;
      writer.submit(buffer);
    }
    while (!slow_write_started) std::this_thread::yield();
    throw std::runtime_error("malformed record");  // the trimming side fails
  };
  CHECK_THROWS_WITH(trim_and_fail(), "malformed record");
  // A write in progress ended; the queued group may or may not have been
  // started, but nothing is left running and nothing came after group 1.
  for (const std::vector<int>& lane : lanes.written)
    for (const int g : lane) CHECK(g <= 1);
  CHECK(lanes.writes.load() >= 1);
}
