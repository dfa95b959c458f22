#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "test_temp_dir.hpp"

namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

}  // namespace

TEST_CASE("committed output appears whole under its name", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const fs::path target = dir / "out.tsv";
  {
    seqfuse::OutputFile out(target.string());
    CHECK(entries(dir) == 1);  // the temporary, beside the target
    CHECK_FALSE(fs::exists(target));
    std::string big(3 << 20, 'x');  // larger than the write buffer
    out.write("head\n");
    out.write(big);
    out.write("tail\n");
    out.commit();
  }
  CHECK(entries(dir) == 1);
  const std::string text = slurp(target);
  CHECK(text.size() == 5 + (3u << 20) + 5);
  CHECK(text.substr(0, 5) == "head\n");
  CHECK(text.substr(text.size() - 5) == "tail\n");
}

TEST_CASE("uncommitted output leaves nothing and keeps an older file", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const fs::path target = dir / "keep.txt";
  std::ofstream(target) << "old";
  {
    seqfuse::OutputFile out(target.string());
    out.write("partial");
  }  // destroyed without commit, as when an error unwinds
  CHECK(entries(dir) == 1);
  CHECK(slurp(target) == "old");
}

TEST_CASE("unwritable targets fail before any work", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  CHECK_THROWS_WITH(seqfuse::OutputFile((dir / "no/such/dir/x.tsv").string()),
                    "cannot create output '" + (dir / "no/such/dir/x.tsv").string() +
                        "': No such file or directory");
  CHECK_THROWS_WITH(seqfuse::OutputFile(dir.string()),
                    "cannot write '" + dir.string() + "': it is a directory");
  CHECK_THROWS_AS(seqfuse::OutputFile(""), seqfuse::UsageError);
}

TEST_CASE("committed output honours the umask", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const fs::path target = dir / "mode.txt";
  const mode_t old = ::umask(022);
  {
    seqfuse::OutputFile out(target.string());
    out.write("x");
    out.commit();
  }
  ::umask(old);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("devices and pipes are written through, never renamed over", "[core]") {
  {
    seqfuse::OutputFile out("/dev/null");
    out.write("discarded\n");
    out.commit();
  }
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}
