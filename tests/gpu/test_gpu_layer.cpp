// The portable GPU layer on a real device: discovery, memory, copies, an op
// through its three layers, and out-of-memory as a clean error.
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory_resource>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "gpu/error.hpp"
#include "gpu/primitives/base_code.hpp"
#include "gpu/primitives/encode_bases.hpp"
#include "gpu/runtime.hpp"

namespace gpu = seqfuse::gpu;

TEST_CASE("a GPU is found and described", "[gpu]") {
  const auto found = gpu::devices();
  REQUIRE_FALSE(found.empty());
  for (const auto& d : found) {
    CHECK_FALSE(d.name.empty());
    CHECK_FALSE(d.arch.empty());
    CHECK(d.total_memory > 0);
    CHECK(d.free_memory <= d.total_memory);
    CHECK(d.multiprocessors > 0);
    CHECK((d.warp_size == 32 || d.warp_size == 64));
  }
  CHECK(gpu::backend().name != "none");
}

TEST_CASE("encode_bases on the device equals the host reference", "[gpu]") {
  std::mt19937_64 rng(std::random_device{}());
  const char alphabet[] = "ACGTacgtNnRYKMSWBDHVryk-.*\x01\xff";
  gpu::Stream stream;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4},
                        std::size_t{5}, std::size_t{1000}, (std::size_t{1} << 22) + 3}) {
    std::pmr::vector<char> ascii(n, gpu::pinned_resource());
    std::uniform_int_distribution<std::size_t> pick(0, sizeof alphabet - 2);
    for (auto& c : ascii) c = alphabet[pick(rng)];
    std::vector<std::uint8_t> expected(n), got(n, 0xAB);
    seqfuse::encode_bases_host(ascii.data(), expected.data(), n);

    gpu::DeviceBuffer d_ascii(n), d_codes(n);
    if (n > 0) {
      gpu::copy_to_device(d_ascii.data(), ascii.data(), n, stream);
      gpu::fill_device(d_codes.data(), 0xAB, n, stream);  // poison: every byte must be written
    }
    REQUIRE(gpu::encode_bases(d_ascii, d_codes, n, stream) == gpu::Status::kSuccess);
    if (n > 0) gpu::copy_to_host(got.data(), d_codes.data(), n, stream);
    stream.synchronize();
    INFO("n = " << n);
    CHECK(got == expected);
  }
}

TEST_CASE("encode_bases refuses sizes that do not fit", "[gpu]") {
  gpu::Stream stream;
  gpu::DeviceBuffer small(16), big(64), none;
  CHECK(gpu::encode_bases(small, big, 32, stream) == gpu::Status::kInvalidSize);
  CHECK(gpu::encode_bases(big, small, 32, stream) == gpu::Status::kInvalidSize);
  CHECK(gpu::encode_bases(none, big, 8, stream) == gpu::Status::kNullBuffer);
}

TEST_CASE("an impossible allocation is a clean error and the device stays usable", "[gpu]") {
  const std::size_t huge = std::size_t{1} << 50;  // 1 PiB
  try {
    gpu::DeviceBuffer too_big(huge);
    FAIL("allocating 1 PiB succeeded");
  } catch (const seqfuse::gpu::OutOfMemory& e) {
    CHECK(std::string(e.what()).find("device out of memory: requested") == 0);
  }
  gpu::DevicePool pool;
  CHECK_THROWS_AS(pool.acquire(huge), seqfuse::gpu::OutOfMemory);

  gpu::DeviceBuffer fine(1 << 20);
  gpu::Stream stream;
  gpu::fill_device(fine.data(), 7, 1 << 20, stream);
  std::vector<unsigned char> back(1 << 20);
  gpu::copy_to_host(back.data(), fine.data(), back.size(), stream);
  stream.synchronize();
  CHECK(back.front() == 7);
  CHECK(back.back() == 7);
}

TEST_CASE("the device pool reuses released buffers", "[gpu]") {
  gpu::DevicePool pool;
  gpu::DeviceBuffer a = pool.acquire(1 << 20);
  void* first = a.data();
  pool.release(std::move(a));
  CHECK(pool.cached_bytes() == (1u << 20));
  gpu::DeviceBuffer b = pool.acquire((1 << 20) - 100);
  CHECK(b.data() == first);
  CHECK(pool.cached_bytes() == 0);
  pool.release(std::move(b));
  gpu::DeviceBuffer c = pool.acquire(64 << 20);  // far larger: a new allocation
  CHECK(c.data() != first);
  pool.trim();
  CHECK(pool.cached_bytes() == 0);
}
