// The GEMM algorithm cache's file (gpu/nn/gemm_cache.hpp): entries round
// trip exactly, a missing, foreign or damaged file gives what it safely
// can (it is only a cache), and SEQFUSE_CACHE_DIR names or turns off its
// folder.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "gpu/nn/gemm_cache.hpp"
#include "test_temp_dir.hpp"

namespace {

using seqfuse::gpu::nn::CachedAlgorithm;
using seqfuse::gpu::nn::GemmCache;

GemmCache sample() {
  GemmCache cache;
  cache["cublasLt 130000 | NVIDIA H100 80GB HBM3 sm90 x132 | 320 960 1 1 0 1 0"] =
      CachedAlgorithm{true, {0, 1, 0xffffffffffffffffULL, 42, 7, 0x8000000000000000ULL, 3, 9}};
  cache["cublasLt 130000 | NVIDIA H100 80GB HBM3 sm90 x132 | 1280 320 1 2 1 2 0"] =
      CachedAlgorithm{false, {}};
  return cache;
}

bool same(const GemmCache& a, const GemmCache& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a) {
    const auto found = b.find(key);
    if (found == b.end() || found->second.usable != value.usable ||
        found->second.words != value.words)
      return false;
  }
  return true;
}

// Sets an environment variable for the scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("the GEMM cache's entries round trip through its file", "[gemm-cache]") {
  seqfuse::test::TempDir dir;
  const auto path = dir.file("sub") / "gemm-algorithms.tsv";  // the folder is made
  REQUIRE(seqfuse::gpu::nn::write_gemm_cache(path, sample()));
  CHECK(same(seqfuse::gpu::nn::read_gemm_cache(path), sample()));
  // Rewritten whole, not appended to.
  GemmCache one;
  one["k"] = CachedAlgorithm{true, {1, 2, 3, 4, 5, 6, 7, 8}};
  REQUIRE(seqfuse::gpu::nn::write_gemm_cache(path, one));
  CHECK(same(seqfuse::gpu::nn::read_gemm_cache(path), one));
}

TEST_CASE("a missing, foreign or damaged GEMM cache gives what it safely can", "[gemm-cache]") {
  seqfuse::test::TempDir dir;
  CHECK(seqfuse::gpu::nn::read_gemm_cache(dir.file("absent.tsv")).empty());
  CHECK(seqfuse::gpu::nn::read_gemm_cache({}).empty());
  CHECK_FALSE(seqfuse::gpu::nn::write_gemm_cache({}, sample()));

  const auto path = dir.file("cache.tsv");
  REQUIRE(seqfuse::gpu::nn::write_gemm_cache(path, sample()));
  const std::string good = seqfuse::test::slurp(path);
  const auto rewrite = [&](const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
    return seqfuse::gpu::nn::read_gemm_cache(path);
  };
  // Another format's header: nothing.
  CHECK(rewrite("# seqfuse gemm algorithms v0\n" + good.substr(good.find('\n') + 1)).empty());
  // A cut last line: the whole lines before it.
  CHECK(rewrite(good.substr(0, good.size() - 5)).size() == 1);
  // A word that is not hex, a missing word, an extra word, a bad flag: none
  // from that line on.
  const std::string header = good.substr(0, good.find('\n') + 1);
  CHECK(rewrite(header + "k\t1\t0 1 2 3 4 5 6 zz\n").empty());
  CHECK(rewrite(header + "k\t1\t0 1 2 3 4 5 6\n").empty());
  CHECK(rewrite(header + "k\t1\t0 1 2 3 4 5 6 7 8\n").empty());
  CHECK(rewrite(header + "k\t2\t0 1 2 3 4 5 6 7\n").empty());
  CHECK(rewrite(header + "k\t1\t0 1 2 3 4 5 6 7\n").size() == 1);
  // A folder where the file should be: not written, no error.
  std::filesystem::create_directories(dir.file("taken"));
  CHECK_FALSE(seqfuse::gpu::nn::write_gemm_cache(dir.file("taken"), sample()));
}

TEST_CASE("SEQFUSE_CACHE_DIR names the GEMM cache's folder or turns it off", "[gemm-cache]") {
  {
    ScopedEnv dir("SEQFUSE_CACHE_DIR", "/some/where");
    CHECK(seqfuse::gpu::nn::gemm_cache_path() == "/some/where/gemm-algorithms.tsv");
  }
  {
    ScopedEnv dir("SEQFUSE_CACHE_DIR", "");
    CHECK(seqfuse::gpu::nn::gemm_cache_path().empty());
  }
  {
    ScopedEnv dir("SEQFUSE_CACHE_DIR", nullptr);
    ScopedEnv xdg("XDG_CACHE_HOME", "/x");
    CHECK(seqfuse::gpu::nn::gemm_cache_path() == "/x/seqfuse/gemm-algorithms.tsv");
    ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
    ScopedEnv home("HOME", "/home/u");
    CHECK(seqfuse::gpu::nn::gemm_cache_path() == "/home/u/.cache/seqfuse/gemm-algorithms.tsv");
  }
}
