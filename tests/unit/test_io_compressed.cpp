// gzip, BGZF and stdin inputs: same records as the plain file; damaged
// compressed streams are errors, never a silent early end.
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "io/batch_reader.hpp"
#include "io/sequence_reader.hpp"
#include "test_io_support.hpp"

using seqfuse::io::BatchLimits;
using seqfuse::io::read_all;
using seqfuse::io::SequenceBatch;
using seqfuse::io::SequenceReader;
using seqfuse::io::SequenceRecord;
namespace t = seqfuse::io::test;

namespace {

void check_identical(const SequenceBatch& a, const SequenceBatch& b) {
  CHECK(a.format == b.format);
  CHECK(a.size() == b.size());
  CHECK(a.bases == b.bases);
  CHECK(a.quals == b.quals);
  CHECK(a.offsets == b.offsets);
  CHECK(a.names == b.names);
  CHECK(a.name_offsets == b.name_offsets);
  CHECK(a.comments == b.comments);
  CHECK(a.comment_offsets == b.comment_offsets);
}

// Runs `body` in a child process whose stdin is `path`; returns the child's exit
// status. The child reports through its status because Catch2 lives in the parent.
int with_stdin_from(const std::string& path, int (*body)()) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0 || ::dup2(fd, STDIN_FILENO) < 0) ::_exit(90);
    int status = 91;
    try {
      status = body();
    } catch (...) {
      status = 92;
    }
    ::_exit(status);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("gzip and BGZF inputs give the same batches as plain text", "[io]") {
  t::ScratchDir dir;
  // ~1 MB: many BGZF blocks, so the multi-threaded BGZF path is exercised.
  const std::string fastq = t::make_fastq(6000);
  const std::string fasta = t::slurp((t::kDataDir / "sample.fa").string());
  for (const auto& [name, text] : {std::pair{"in.fq", fastq}, std::pair{"in.fa", fasta}}) {
    CAPTURE(name);
    const auto plain = read_all(dir.write(name, text));
    REQUIRE(plain.size() > 0);
    const std::string gz = t::write_gzip(dir.path(std::string(name) + ".gz"), text);
    const std::string bgz = t::write_bgzf(dir.path(std::string(name) + ".bgz"), text);
    check_identical(read_all(gz), plain);
    check_identical(read_all(bgz), plain);
    // Batched reading sees the same records.
    CHECK(t::read_batches(bgz, BatchLimits{.max_records = 1000}).records == t::records_of(plain));
    CHECK(t::read_batches(gz, BatchLimits{.max_records = 1000}).records == t::records_of(plain));
  }
}

TEST_CASE("concatenated gzip members read as one stream", "[io]") {
  t::ScratchDir dir;
  const std::string first = t::write_gzip(dir.path("a.gz"), "@a\nAC\n+\nII\n");
  const std::string second = t::write_gzip(dir.path("b.gz"), "@b\nG\n+\n#\n");
  const std::string both = dir.write("ab.fq.gz", t::slurp(first) + t::slurp(second));
  CHECK(t::read_records(both) ==
        std::vector<SequenceRecord>{{"a", "", "AC", "II"}, {"b", "", "G", "#"}});
}

TEST_CASE("empty compressed inputs give no records", "[io]") {
  t::ScratchDir dir;
  CHECK(read_all(t::write_gzip(dir.path("e.gz"), "")).empty());
  CHECK(read_all(t::write_bgzf(dir.path("e.bgz"), "")).empty());
}

TEST_CASE("truncated or corrupt compressed input is an error", "[io]") {
  t::ScratchDir dir;
  const t::QuietHtslib quiet;
  const std::string text = t::make_fastq(6000);
  const std::string gz = t::slurp(t::write_gzip(dir.path("full.gz"), text));
  const std::string bgz = t::slurp(t::write_bgzf(dir.path("full.bgz"), text));
  REQUIRE(gz.size() > 1000);

  std::string flipped = gz;  // damage in the middle of the deflate data
  for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 16; ++i) flipped[i] ^= 0x5a;

  const std::vector<std::pair<std::string, std::string>> damaged = {
      {"cut.fq.gz", gz.substr(0, gz.size() / 2)},
      {"cut-in-trailer.fq.gz", gz.substr(0, gz.size() - 4)},
      {"cut-in-header.fq.gz", gz.substr(0, 5)},
      {"flipped.fq.gz", flipped},
      {"garbage-after.fq.gz", gz + "not a gzip member"},
      {"half-a-magic-after.fq.gz", gz + "\x1f"},
      {"cut.fq.bgz", bgz.substr(0, bgz.size() / 2)},
  };
  for (const auto& [name, bytes] : damaged) {
    SECTION(name) {
      const std::string path = dir.write(name, bytes);
      const std::string expected = path + ": truncated or corrupt gzip input";
      CHECK_THROWS_WITH(read_all(path), expected);
      CHECK_THROWS_WITH(t::read_records(path), expected);
      CHECK_THROWS_WITH(t::read_batches(path, BatchLimits{.max_records = 100}), expected);
    }
  }
}

TEST_CASE("FASTQ compressed twice is reported by its first byte", "[io]") {
  t::ScratchDir dir;
  const std::string once = t::write_gzip(dir.path("once.gz"), "@a\nAC\n+\nII\n");
  const std::string twice = t::write_gzip(dir.path("twice.fq.gz"), t::slurp(once));
  CHECK_THROWS_WITH(read_all(twice), twice + ": not FASTA or FASTQ (first byte 0x1f)");
}

TEST_CASE("\"-\" reads standard input, plain or compressed", "[io]") {
  t::ScratchDir dir;
  const std::string text = t::make_fastq(3000);
  const std::string plain = dir.write("in.fq", text);
  const std::string gz = t::write_gzip(dir.path("in.fq.gz"), text);
  const std::string bgz = t::write_bgzf(dir.path("in.fq.bgz"), text);
  const std::string bad = dir.write("bad.fq", "@a\nAC\n+\nI\n");

  // Exit status 0 when stdin holds the 3000 records with the right last name.
  auto read_stdin = +[]() -> int {
    const auto batch = read_all("-");
    return batch.size() == 3000 && batch.name(2999) == "r3000" ? 0 : 1;
  };
  CHECK(with_stdin_from(plain, read_stdin) == 0);
  CHECK(with_stdin_from(gz, read_stdin) == 0);
  CHECK(with_stdin_from(bgz, read_stdin) == 0);

  // Errors on stdin name it "stdin".
  auto expect_stdin_message = +[]() -> int {
    try {
      SequenceReader reader("-");
      SequenceRecord rec;
      while (reader.next(rec)) {
      }
    } catch (const seqfuse::Error& e) {
      return std::string(e.what()) ==
                     "stdin: record 1: quality length 1 differs from sequence length 2"
                 ? 0
                 : 1;
    }
    return 2;
  };
  CHECK(with_stdin_from(bad, expect_stdin_message) == 0);
}
