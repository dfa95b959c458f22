#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/device_workers.hpp"
#include "core/error.hpp"

using seqfuse::split_by_weight;

TEST_CASE("a split by weight gives contiguous parts of near-equal weight", "[core][devices]") {
  CHECK(split_by_weight({}, 3) == std::vector<std::size_t>{0, 0, 0, 0});
  CHECK(split_by_weight({5}, 1) == std::vector<std::size_t>{0, 1});
  CHECK(split_by_weight({1, 1, 1, 1}, 2) == std::vector<std::size_t>{0, 2, 4});
  CHECK(split_by_weight({1, 1, 1, 1}, 4) == std::vector<std::size_t>{0, 1, 2, 3, 4});
  // A heavy item goes to the part holding its middle; the light ones after
  // it are not dragged along.
  CHECK(split_by_weight({1, 100, 1, 1}, 2) == std::vector<std::size_t>{0, 2, 4});
  CHECK(split_by_weight({1, 1, 100, 1}, 3) == std::vector<std::size_t>{0, 2, 3, 4});
  CHECK(split_by_weight({0, 0, 0, 0}, 2) == std::vector<std::size_t>{0, 2, 4});
  // More parts than items: some parts are empty, none is lost.
  const auto sparse = split_by_weight({3, 3}, 5);
  CHECK(sparse.front() == 0);
  CHECK(sparse.back() == 2);
  CHECK(std::is_sorted(sparse.begin(), sparse.end()));
  // Random weights: every part within one item of its share.
  std::vector<std::uint64_t> weights(1000);
  for (std::size_t k = 0; k < weights.size(); ++k) weights[k] = (k * 7919) % 97 + 1;
  const std::uint64_t total = std::accumulate(weights.begin(), weights.end(), std::uint64_t{0});
  for (const std::size_t parts : {1, 2, 3, 7, 8}) {
    const auto bounds = split_by_weight(weights, parts);
    REQUIRE(bounds.size() == parts + 1);
    CHECK(bounds.back() == weights.size());
    for (std::size_t p = 0; p < parts; ++p) {
      const auto sum =
          std::accumulate(weights.begin() + static_cast<long>(bounds[p]),
                          weights.begin() + static_cast<long>(bounds[p + 1]), std::uint64_t{0});
      CHECK(sum + 97 >= total / parts);
      CHECK(sum <= total / parts + 97);
    }
  }
  CHECK_THROWS_AS(split_by_weight({1}, 0), seqfuse::Error);
}

// Fake devices: the same threads and failure handling as on GPUs, with a
// binder that records the device instead of making it current.
TEST_CASE("device workers run once per entry and report the first failure", "[core][devices]") {
  const auto fake = [](int) {};
  std::vector<int> seen(4, -1);
  seqfuse::run_device_workers(
      {0, 0, 1, 3}, [&](std::stop_token, std::size_t worker, int device) { seen[worker] = device; },
      fake);
  CHECK(seen == std::vector<int>{0, 0, 1, 3});

  std::atomic<int> stopped{0};
  const auto failing = [&](std::stop_token stop, std::size_t worker, int) {
    if (worker == 2) throw seqfuse::Error("device 2 failed");
    while (!stop.stop_requested()) std::this_thread::yield();
    ++stopped;
  };
  CHECK_THROWS_WITH(seqfuse::run_device_workers({0, 1, 2, 3}, failing, fake), "device 2 failed");
  CHECK(stopped == 3);  // the others were asked to stop and did
  CHECK_THROWS_AS(seqfuse::run_device_workers({}, failing, fake), seqfuse::Error);
}
