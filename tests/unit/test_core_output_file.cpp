#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

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

std::string same_file(const std::string& output, const char* role, const std::string& other) {
  return "output '" + output + "' is the same file as " + role + " '" + other + "'";
}

// Everything readable from `fd` until its writers are gone.
std::string drain(int fd) {
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;)
    text.append(chunk, static_cast<std::size_t>(n));
  return text;
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

TEST_CASE("an output that is an input of the run is refused, the input untouched", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const std::string input = (dir / "in.fa").string();
  std::ofstream(input) << ">a\nACGT\n";
  fs::create_symlink("in.fa", dir / "link.fa");
  fs::create_hard_link(input, dir / "hard.fa");
  fs::create_directory(dir / "sub");
  const seqfuse::RunScope run;
  seqfuse::register_input(input);
  CHECK_THROWS_WITH(seqfuse::OutputFile(input), same_file(input, "input", input));
  // Another spelling, a link to it and a hard link are the same file.
  const std::string dotted = (dir / "sub/../in.fa").string();
  CHECK_THROWS_WITH(seqfuse::OutputFile(dotted), same_file(dotted, "input", input));
  const std::string link = (dir / "link.fa").string();
  CHECK_THROWS_WITH(seqfuse::OutputFile(link), same_file(link, "input", input));
  const std::string hard = (dir / "hard.fa").string();
  CHECK_THROWS_AS(seqfuse::OutputFile(hard), seqfuse::UsageError);
  CHECK(entries(dir) == 4);  // nothing created beside them
  CHECK(slurp(input) == ">a\nACGT\n");
  // A file next to it is fine.
  seqfuse::OutputFile other((dir / "out.fa").string());
}

TEST_CASE("an input registered after its output was opened is refused too", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const std::string input = (dir / "in.kdb").string();
  std::ofstream(input) << "db";
  const seqfuse::RunScope run;
  {
    seqfuse::OutputFile out(input);  // outputs are opened first in every run
    out.write("new");
    CHECK_THROWS_WITH(seqfuse::register_input(input), same_file(input, "input", input));
  }  // the error unwinds: the temporary goes, the input stays
  CHECK(entries(dir) == 1);
  CHECK(slurp(input) == "db");
  // "-" and files that are not regular are never compared.
  seqfuse::register_input("-");
  seqfuse::register_input("/dev/null");
  seqfuse::OutputFile null("/dev/null");
}

TEST_CASE("inputs belong to the run that registered them", "[core]") {
  const TempDir scratch;
  const std::string input = (scratch.path() / "in.fa").string();
  std::ofstream(input) << ">a\nA\n";
  {
    const seqfuse::RunScope run;
    seqfuse::register_input(input);
    CHECK_THROWS_AS(seqfuse::OutputFile(input), seqfuse::UsageError);
  }
  // A later job of the same process may write it, and outside a run
  // nothing is recorded.
  seqfuse::register_input(input);
  seqfuse::OutputFile again(input);
  again.write("x");
  again.commit();
  CHECK(slurp(input) == "x");
}

TEST_CASE("two outputs of one run on one file are refused", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const std::string x = (dir / "x").string();
  fs::create_symlink("x", dir / "to-x");
  {
    seqfuse::OutputFile first(x);  // does not exist yet: compared by normal path
    CHECK_THROWS_WITH(seqfuse::OutputFile(x), same_file(x, "output", x));
    const std::string dotted = (dir / "./x").string();
    CHECK_THROWS_WITH(seqfuse::OutputFile(dotted), same_file(dotted, "output", x));
    const std::string link = (dir / "to-x").string();  // dangling: names x all the same
    CHECK_THROWS_WITH(seqfuse::OutputFile(link), same_file(link, "output", x));
    first.write("one");
    first.commit();
  }
  CHECK(slurp(x) == "one");
  {
    seqfuse::OutputFile first(x);  // exists now: compared by device and inode
    fs::create_hard_link(x, dir / "hard");
    CHECK_THROWS_AS(seqfuse::OutputFile((dir / "hard").string()), seqfuse::UsageError);
  }
  seqfuse::OutputFile after(x);  // the first is gone: free again
}

TEST_CASE("a symlink output is written through to its target", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  fs::create_directory(dir / "data");
  std::ofstream(dir / "data/real.tsv") << "old";
  fs::create_symlink("data/real.tsv", dir / "link.tsv");
  fs::create_symlink("data/new.tsv", dir / "dangling.tsv");  // its target does not exist yet
  for (const char* name : {"link.tsv", "dangling.tsv"}) {
    seqfuse::OutputFile out((dir / name).string());
    CHECK(entries(dir / "data") == 2);  // real.tsv and the temporary, beside the target
    out.write(name);
    out.commit();
  }
  CHECK(fs::is_symlink(dir / "link.tsv"));
  CHECK(fs::read_symlink(dir / "link.tsv") == "data/real.tsv");
  CHECK(slurp(dir / "data/real.tsv") == "link.tsv");
  CHECK(fs::is_symlink(dir / "dangling.tsv"));
  CHECK(slurp(dir / "data/new.tsv") == "dangling.tsv");
  CHECK(entries(dir / "data") == 2);
}

TEST_CASE("a link loop is one clear error", "[core]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  fs::create_symlink("b", dir / "a");
  fs::create_symlink("a", dir / "b");
  const std::string a = (dir / "a").string();
  CHECK_THROWS_WITH(seqfuse::OutputFile(a),
                    "cannot write '" + a + "': too many levels of symbolic links");
}

TEST_CASE("/dev/stdout redirected to a file writes that file, at the shell's offset", "[core]") {
  const TempDir scratch;
  const fs::path captured = scratch.path() / "captured.txt";
  std::cout.flush();
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  REQUIRE(saved >= 0);
  const int file = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(file >= 0);
  REQUIRE(::dup2(file, STDOUT_FILENO) == STDOUT_FILENO);
  ::close(file);
  bool threw = false;
  try {
    REQUIRE(::write(STDOUT_FILENO, "head\n", 5) == 5);  // `{ echo head; seqfuse ...; } > f`
    for (const char* name : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
      seqfuse::OutputFile out(name);
      out.write(std::string(name) + "\n");
      out.commit();
    }
  } catch (...) {
    threw = true;
  }
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK_FALSE(threw);
  CHECK(slurp(captured) == "head\n/dev/stdout\n/dev/fd/1\n/proc/self/fd/1\n");
  CHECK(fs::is_symlink("/dev/stdout"));
  CHECK(entries(scratch.path()) == 1);
}

TEST_CASE("descriptor names write to the descriptor: pipes, closed descriptors", "[core]") {
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  {
    seqfuse::OutputFile out("/dev/fd/" + std::to_string(ends[1]));
    CHECK(out.written_through());
    out.write("through the pipe");
    out.commit();
  }  // closes its duplicate only
  ::close(ends[1]);
  CHECK(drain(ends[0]) == "through the pipe");
  ::close(ends[0]);
  CHECK_THROWS_WITH(seqfuse::OutputFile("/dev/fd/1023"),
                    "cannot open output '/dev/fd/1023': Bad file descriptor");
}

TEST_CASE("a FIFO is written through", "[core]") {
  const TempDir scratch;
  const fs::path fifo = scratch.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  {
    seqfuse::OutputFile out(fifo.string());
    CHECK(out.written_through());
    out.write("streamed");
    out.commit();
  }
  reader.join();
  CHECK(received == "streamed");
  CHECK(entries(scratch.path()) == 1);
}

TEST_CASE("a terminating signal removes the temporary and ends the process by it", "[core]") {
  for (const int sig : {SIGHUP, SIGPIPE, SIGXFSZ, SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM}) {
    INFO("signal " << sig);
    const TempDir scratch;
    std::cout.flush();
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // The child sets the signal's action back to the default, as a fresh
      // process has it, then opens an output and is signalled mid-write.
      std::signal(sig, SIG_DFL);
      seqfuse::OutputFile out((scratch.path() / "out.txt").string());
      out.write(std::string(3 << 20, 'x'));
      ::raise(sig);
      ::_exit(0);  // not reached when the signal ends the process
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK((WIFSIGNALED(status) ? WTERMSIG(status) : 0) == sig);
    CHECK(entries(scratch.path()) == 0);
  }
}
