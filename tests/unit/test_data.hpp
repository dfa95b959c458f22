// Where the test fixtures are: $SEQFUSE_TEST_DATA_DIR when set (the GPU
// machine gets the repository at another path), else the source tree's
// tests/data compiled in. And the seed of every randomized test.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace seqfuse::test {

inline std::filesystem::path data_dir() {
  if (const char* env = std::getenv("SEQFUSE_TEST_DATA_DIR"); env && *env) return env;
  return SEQFUSE_TEST_DATA_DIR;
}

// A fresh seed each run; SEQFUSE_TEST_SEED=<n> replays a failure.
inline std::uint64_t test_seed() {
  if (const char* fixed = std::getenv("SEQFUSE_TEST_SEED"))
    return std::strtoull(fixed, nullptr, 10);
  return std::random_device{}();
}

}  // namespace seqfuse::test
