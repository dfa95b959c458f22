#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "core/halving_retry.hpp"
#include "gpu/error.hpp"

using seqfuse::with_halving_on_oom;

TEST_CASE("a size that does not fit is halved down to the minimum", "[core][oom]") {
  std::vector<std::size_t> tried, retried;
  // A device that holds 300 units: 1000 and 500 fail, 250 fits.
  const auto make = [&](std::size_t n) {
    tried.push_back(n);
    if (n > 300) throw seqfuse::gpu::OutOfMemory("out of device memory");
    return n;
  };
  const auto note = [&](std::size_t n) { retried.push_back(n); };
  CHECK(with_halving_on_oom(1000, 100, make, note) == 250);
  CHECK(tried == std::vector<std::size_t>{1000, 500, 250});
  CHECK(retried == std::vector<std::size_t>{500, 250});

  // The first size fits: one call, no retry.
  tried.clear();
  retried.clear();
  CHECK(with_halving_on_oom(200, 100, make, note) == 200);
  CHECK(tried == std::vector<std::size_t>{200});
  CHECK(retried.empty());

  // Half would fall below the minimum: the device's error, not a smaller size.
  tried.clear();
  CHECK_THROWS_AS(with_halving_on_oom(1000, 400, make, note), seqfuse::gpu::OutOfMemory);
  CHECK(tried == std::vector<std::size_t>{1000, 500});

  // Other errors are not retried.
  tried.clear();
  const auto broken = [&](std::size_t n) -> std::size_t {
    tried.push_back(n);
    throw seqfuse::gpu::Error("launch failed");
  };
  CHECK_THROWS_AS(with_halving_on_oom(1000, 1, broken, note), seqfuse::gpu::Error);
  CHECK(tried.size() == 1);
}
