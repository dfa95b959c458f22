// Every malformed-input error, with its exact one-line message. A table, as in
// htslib's test driver: input text -> message after "<file>: ".
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "io/batch_reader.hpp"
#include "io/fastq_text.hpp"
#include "io/record_parser.hpp"
#include "io/sequence_reader.hpp"
#include "test_io_support.hpp"

using seqfuse::io::BatchLimits;
using seqfuse::io::BatchReader;
using seqfuse::io::read_all;
using seqfuse::io::SequenceReader;
using seqfuse::io::SequenceRecord;
namespace t = seqfuse::io::test;
using namespace std::string_literals;

namespace {

struct BadInput {
  const char* what;
  std::string content;
  std::string message;         // expected text after "<path>: "
  std::size_t records_before;  // good records SequenceReader returns before throwing
};

const std::string kGoodFastq = "@r\nACGT\n+\nIIII\n";

// The message SequenceReader throws, after checking how many records came first.
std::string reader_error(const std::string& path, std::size_t expected_records_before) {
  SequenceReader reader(path);
  SequenceRecord rec;
  std::size_t returned = 0;
  try {
    while (reader.next(rec)) ++returned;
  } catch (const seqfuse::Error& e) {
    CHECK(returned == expected_records_before);
    // The error stays: asking again does not resume mid-file.
    CHECK_THROWS_AS(reader.next(rec), seqfuse::Error);
    return e.what();
  }
  return "(no error)";
}

std::string batch_reader_error(const std::string& path) {
  try {
    BatchReader reader(path, BatchLimits{.max_records = 2});
    while (reader.next() != nullptr) {
    }
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("malformed input: exact messages naming file and record", "[io]") {
  const std::vector<BadInput> table = {
      {"quality shorter than sequence",
       kGoodFastq + kGoodFastq + "@r3\n" + std::string(100, 'A') + "\n+\n" + std::string(98, 'I') +
           "\n",
       "record 3: quality length 98 differs from sequence length 100", 2},
      {"second sequence line where '+' belongs",
       kGoodFastq + "@r2\nACGT\nACGTACGTACGTACGTACGTACGT\n+\nIIII\n",
       "record 2: expected '+' line, found 'ACGTACGTACGTACGTACGT...'", 1},
      {"blank line where '+' belongs", "@r1\nACGT\n\n+\nIIII\n",
       "record 1: expected '+' line, found ''", 0},
      {"control bytes in the quoted text are escaped", "@r1\nAC\nGT\x02\x7f\n",
       "record 1: expected '+' line, found 'GT\\x02\\x7f'", 0},
      {"missing quality line", kGoodFastq + kGoodFastq + kGoodFastq + kGoodFastq + "@r5\nACGT\n+\n",
       "record 5: file ends inside a record", 4},
      {"missing '+' and quality lines", kGoodFastq + "@r2\nACGT\n",
       "record 2: file ends inside a record", 1},
      {"header only", kGoodFastq + "@r2", "record 2: file ends inside a record", 1},
      {"text that is not a header between records", kGoodFastq + "xyz\nACGT\n+\nIIII\n",
       "record 2: expected '@' line, found 'xyz'", 1},
      {"FASTA header inside FASTQ", kGoodFastq + "\n>r2\nACGT\n+\nIIII\n",
       "record 2: expected '@' line, found '>r2'", 1},
      {"NUL byte in a FASTQ sequence",
       kGoodFastq + kGoodFastq + kGoodFastq + kGoodFastq + kGoodFastq + kGoodFastq +
           "@r7\nAC\0T\n+\nIIII\n"s,
       "record 7: binary data in sequence", 6},
      {"control byte in a FASTA sequence", ">a\nACGT\n>b\nAC\nG\x01T\n",
       "record 2: binary data in sequence", 1},
      {"control byte deep inside a long FASTA line",
       ">a\nACGT\n>b\n" + std::string(37, 'A') + "\x08" + std::string(40, 'C') + "\n",
       "record 2: binary data in sequence", 1},
      {"line that is only a carriage return and text", kGoodFastq + "\rxyz\n" + kGoodFastq,
       "record 2: expected '@' line, found '\\x0dxyz'", 1},
      {"FASTA header without a name", ">a\nAC\n> desc\nAC\n", "record 2: empty name", 1},
      {"FASTQ header without a name", "@\nA\n+\nI\n", "record 1: empty name", 0},
      {"plain text", "hello\n", "not FASTA or FASTQ (first byte 0x68)", 0},
      {"binary data", "\0\1\2"s, "not FASTA or FASTQ (first byte 0x00)", 0},
      {"blank lines, then a non-record", "\n\r\n  >a\n", "not FASTA or FASTQ (first byte 0x20)", 0},
  };
  t::ScratchDir dir;
  for (const auto& bad : table) {
    SECTION(bad.what) {
      const std::string path = dir.write("bad.txt", bad.content);
      const std::string expected = path + ": " + bad.message;
      CHECK(reader_error(path, bad.records_before) == expected);
      CHECK(batch_reader_error(path) == expected);
      CHECK_THROWS_WITH(read_all(path), expected);
      // The same rules over text in memory (kmer-count query -f): the same
      // words and record number.
      if (bad.content[0] == '@' || bad.content[0] == '>') {
        seqfuse::io::SequenceBatch batch;
        std::string in_memory = "(no error)";
        try {
          if (bad.content[0] == '@')
            seqfuse::io::parse_fastq_text(bad.content, batch);
          else
            seqfuse::io::parse_fasta_text(bad.content, batch);
        } catch (const seqfuse::io::RecordSyntaxError& e) {
          in_memory = "record " + std::to_string(batch.size() + 1) + ": " + e.what;
        }
        CHECK(in_memory == bad.message);
      }
    }
  }
}

TEST_CASE("a file that does not exist", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.path("x.fa");
  const std::string expected = "cannot open '" + path + "': No such file or directory";
  CHECK_THROWS_WITH(SequenceReader(path), expected);
  CHECK_THROWS_WITH(BatchReader(path), expected);
  CHECK_THROWS_WITH(read_all(path), expected);
  CHECK_THROWS_AS(SequenceReader(path), seqfuse::Error);
}

TEST_CASE("a folder instead of a file", "[io]") {
  t::ScratchDir dir;
  const t::QuietHtslib quiet;
  const std::string folder = dir.path("");
  try {
    (void)read_all(folder);
    FAIL("no error");
  } catch (const seqfuse::Error& e) {
    // htslib fails either at open or at the first read; both name the folder.
    CHECK_THAT(e.what(), Catch::Matches("cannot open '" + folder + "': Is a directory|" + folder +
                                        ": read error: Is a directory"));
  }
}

TEST_CASE("BatchReader delivers the batches before the bad record, then throws", "[io]") {
  t::ScratchDir dir;
  std::string text;
  for (int i = 0; i < 24; ++i) text += kGoodFastq;
  text += "@r25\nACGT\n+\nIII\n";
  const std::string path = dir.write("bad25.fq", text);
  BatchReader reader(path, BatchLimits{.max_records = 10});
  const auto* first = reader.next();
  REQUIRE(first != nullptr);
  CHECK(first->size() == 10);
  const auto* second = reader.next();
  REQUIRE(second != nullptr);
  CHECK(second->first_record == 10);
  CHECK_THROWS_WITH(reader.next(),
                    path + ": record 25: quality length 3 differs from sequence length 4");
  CHECK_THROWS_AS(reader.next(), seqfuse::Error);  // and keeps saying so
}

TEST_CASE("RecordParser keeps failing after an error instead of resuming mid-file", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("bad2.fq", kGoodFastq + "@r2\nAC\n+\nI\n" + kGoodFastq);
  seqfuse::io::RecordParser parser(path);
  seqfuse::io::SequenceBatch batch;
  const std::string expected = path + ": record 2: quality length 1 differs from sequence length 2";
  CHECK_THROWS_WITH(parser.fill(batch, BatchLimits{}), expected);
  CHECK(batch.size() == 1);  // the good record before the bad one
  CHECK(batch.name(0) == "r");
  CHECK_THROWS_WITH(parser.fill(batch, BatchLimits{}), expected);
  CHECK(batch.empty());
}
