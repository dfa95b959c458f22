// fastq-trim's input side: FASTQ records kept byte for byte (headers and '+'
// lines as fastp writes them back), line ends, blank lines, the errors that
// name file and record; the adapter FASTA as fastp loads it; the gzip
// members of .gz outputs.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "preprocess/adapter_fasta.hpp"
#include "preprocess/fastq_records.hpp"
#include "preprocess/gzip_member.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::preprocess;
using seqfuse::test::TempDir;

namespace {

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_error(const std::string& path) {
  try {
    FastqRecordReader reader(path);
    ReadChunk chunk;
    while (reader.next(chunk)) {
    }
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("FASTQ records keep their header and '+' lines", "[preprocess]") {
  TempDir dir;
  const std::string path = write(dir, "r.fq",
                                 "@r1  two\tblanks x\r\nACGT\r\n+r1 again\r\nIIII\r\n\n\n"
                                 "@r2\nNN\n+\n#!\n@r3\n\n+\n\n");
  FastqRecordReader reader(path);
  ReadChunk chunk;
  while (reader.next(chunk)) {
  }
  REQUIRE(chunk.size() == 3);
  CHECK(chunk.header(chunk.records[0]) == "@r1  two\tblanks x");
  CHECK(chunk.plus(chunk.records[0]) == "+r1 again");
  CHECK(chunk.seq(chunk.records[0]) == "ACGT");
  CHECK(chunk.qual(chunk.records[0]) == "IIII");
  CHECK(chunk.seq(chunk.records[1]) == "NN");
  CHECK(chunk.qual(chunk.records[1]) == "#!");
  CHECK(chunk.records[2].length == 0);  // an empty read is a read
  CHECK(reader.records() == 3);
}

TEST_CASE("malformed FASTQ names the file and the record", "[preprocess]") {
  TempDir dir;
  CHECK(read_error(write(dir, "a.fq", "@a\nAC\n+\nII\n@b\nAC\n")) ==
        "file ends inside a record, " + dir.file("a.fq").string() + " record 2");
  CHECK(read_error(write(dir, "b.fq", "@a\nAC\n-\nII\n")) ==
        "expected a '+' line, found '-', " + dir.file("b.fq").string() + " record 1");
  CHECK(read_error(write(dir, "c.fq", ">a\nAC\n")) ==
        "expected a FASTQ header ('@' line), found '>a', " + dir.file("c.fq").string() +
            " record 1");
  CHECK(read_error(write(dir, "d.fq", "@a\nAC\n+\nIII\n")) ==
        "quality length 3 differs from sequence length 2, " + dir.file("d.fq").string() +
            " record 1");
  CHECK(read_error(write(dir, "e.fq", "@a\nAC\n+\nI\x7f\n")) ==
        "quality character '\\x7f' at position 2 is outside phred+33 ('!' to '~'), " +
            dir.file("e.fq").string() + " record 1");
  // The quality check looks at a whole line at once, then for the first bad
  // byte: a high byte late in a long line, a byte below '!' first.
  const std::string seq(150, 'A');
  std::string qual(150, 'I');
  qual[0] = '!';
  qual[1] = '~';
  CHECK(read_error(write(dir, "f.fq", "@a\n" + seq + "\n+\n" + qual + "\n")) == "no error");
  qual[137] = '\xc3';
  CHECK(read_error(write(dir, "g.fq", "@a\n" + seq + "\n+\n" + qual + "\n")) ==
        "quality character '\\xc3' at position 138 is outside phred+33 ('!' to '~'), " +
            dir.file("g.fq").string() + " record 1");
  qual[3] = ' ';
  CHECK(read_error(write(dir, "h.fq", "@a\n" + seq + "\n+\n" + qual + "\n")) ==
        "quality character ' ' at position 4 is outside phred+33 ('!' to '~'), " +
            dir.file("h.fq").string() + " record 1");
}

TEST_CASE("adapter FASTA: header order, case, short sequences", "[preprocess]") {
  TempDir dir;
  const std::string path = write(
      dir, "a.fa", ">zeta\nacgtacgt\nAA\n>alpha x\nGGGG\n>beta\nTTTT-TT*\n>alpha x\nCCCCCC\n");
  // fastp keys by header (the last of equal ones wins), sorts by it, and
  // skips sequences under 6 letters.
  CHECK(load_adapter_fasta(path) == std::vector<std::string>{"CCCCCC", "TTTT-TT*", "ACGTACGTAA"});
  CHECK_THROWS_AS(load_adapter_fasta(dir.file("none.fa").string()), seqfuse::Error);
}

TEST_CASE("gzip members concatenate into one stream", "[preprocess]") {
  TempDir dir;
  GzipCompressor gz(4);
  std::string a, b, empty;
  gz.compress("@r\nACGT\n+\nIIII\n", a);
  gz.compress("@s\nGG\n+\nII\n", b);
  gz.compress("", empty);
  CHECK(empty.empty());
  const std::string path = write(dir, "x.fq.gz", a + b);
  FastqRecordReader reader(path);
  ReadChunk chunk;
  while (reader.next(chunk)) {
  }
  REQUIRE(chunk.size() == 2);
  CHECK(chunk.seq(chunk.records[1]) == "GG");
  CHECK(gzip_output_name("x.fq.gz"));
  CHECK_FALSE(gzip_output_name("x.fq"));
  CHECK_FALSE(gzip_output_name(".gz"));
}
