// The SIGBUS of a mapped input that shrank (core/mapped_input.hpp): one
// error line naming the file, exit status 1, no temporary output left.
// Truncating a file while a real run reads it is a race, so each case runs
// in a forked child that maps a file, truncates it, then touches the gone
// page: deterministic, and the fatal signal stays in the child. Also
// core/regular_file.hpp's regular_file_size.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/mapped_input.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "test_temp_dir.hpp"

namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

// Forks; the child sends stderr to `log`, maps `input` (two pages), opens an
// output in its folder, guards the mapping when `guarded`, truncates the
// file and reads its second page. Returns the child's wait status.
int touch_truncated_mapping(const fs::path& input, const fs::path& log, bool guarded) {
  std::ofstream(input) << std::string(8192, 'A');
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(err, STDERR_FILENO);
    const int fd = ::open(input.c_str(), O_RDWR);
    void* map = ::mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd < 0 || map == MAP_FAILED) ::_exit(90);
    seqfuse::set_fault_message_prefix("seqfuse align-sw");
    seqfuse::OutputFile out((input.parent_path() / "out.tsv").string());
    out.write("partial\n");
    const seqfuse::MappedInputGuard guard(map, 8192, input.string());
    if (!guarded) {
      // An unguarded mapping elsewhere: the fault is not ours to explain.
      void* other = ::mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
      if (::ftruncate(fd, 0) != 0) ::_exit(91);
      const volatile char* bytes = static_cast<const char*>(other);
      ::_exit(bytes[4096] == 'A' ? 92 : 93);
    }
    if (::ftruncate(fd, 0) != 0) ::_exit(91);
    const volatile char* bytes = static_cast<const char*>(map);
    ::_exit(bytes[4096] == 'A' ? 92 : 93);  // SIGBUS: the page is past the end
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return status;
}

bool temporary_left(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".seqfuse-") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a mapped input that shrinks ends the run with one line naming it", "[core]") {
  const TempDir scratch;
  const fs::path input = scratch.path() / "in.fa";
  const fs::path log = scratch.path() / "stderr.txt";
  const int status = touch_truncated_mapping(input, log, true);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(slurp(log) == "seqfuse align-sw: error: input '" + input.string() +
                          "' shrank while it was being read (truncated or rewritten by another "
                          "process)\n");
  CHECK_FALSE(temporary_left(scratch.path()));
  CHECK_FALSE(fs::exists(scratch.path() / "out.tsv"));
}

TEST_CASE("a SIGBUS outside guarded mappings keeps its former handling", "[core]") {
  const TempDir scratch;
  const fs::path input = scratch.path() / "in.fa";
  const fs::path log = scratch.path() / "stderr.txt";
  const int status = touch_truncated_mapping(input, log, false);
  // The default action (SIGBUS) or a sanitizer's report and exit: not our line.
  CHECK((WIFSIGNALED(status) ||
         (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) < 90)));
  CHECK(slurp(log).find("shrank") == std::string::npos);
}

TEST_CASE("regular_file_size sizes regular files and nothing else", "[core]") {
  const TempDir scratch;
  const fs::path file = scratch.path() / "x.fa";
  std::ofstream(file) << std::string(1234, 'A');
  CHECK(seqfuse::regular_file_size(file.string()) == 1234);
  fs::create_symlink(file, scratch.path() / "link.fa");  // links followed
  CHECK(seqfuse::regular_file_size((scratch.path() / "link.fa").string()) == 1234);
  const fs::path fifo = scratch.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(seqfuse::regular_file_size(fifo.string()) == 0);  // not opened: no wait
  CHECK(seqfuse::regular_file_size(scratch.path().string()) == 0);
  CHECK(seqfuse::regular_file_size((scratch.path() / "missing").string()) == 0);
  CHECK(seqfuse::regular_file_size("-") == 0);
  CHECK(seqfuse::regular_file_size("") == 0);
}
