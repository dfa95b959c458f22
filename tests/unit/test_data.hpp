// Where the test fixtures are: $SEQFUSE_TEST_DATA_DIR when set (the GPU
// machine gets the repository at another path), else the source tree's
// tests/data compiled in.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace seqfuse::test {

inline std::filesystem::path data_dir() {
  if (const char* env = std::getenv("SEQFUSE_TEST_DATA_DIR"); env && *env) return env;
  return SEQFUSE_TEST_DATA_DIR;
}

}  // namespace seqfuse::test
