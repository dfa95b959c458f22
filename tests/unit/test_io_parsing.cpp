// What the FASTA/FASTQ parser makes of well-formed input, through both the
// record reader and the batch reader.
#include <catch2/catch.hpp>

#include "io/batch_reader.hpp"
#include "io/sequence_reader.hpp"
#include "test_io_support.hpp"

using seqfuse::io::BatchReader;
using seqfuse::io::read_all;
using seqfuse::io::SequenceFormat;
using seqfuse::io::SequenceReader;
using seqfuse::io::SequenceRecord;
namespace t = seqfuse::io::test;

namespace {

const std::vector<SequenceRecord> kSampleFasta = {
    {"chr1", "Homo sapiens chromosome 1", "ACGTACGTACacgtnnACGTGGCC", ""},
    {"seq2", "tab  separated comment", "NNNN", ""},
    {"empty_seq", "", "", ""},
    {"last", "", "ACGTTT", ""},
};

const std::vector<SequenceRecord> kSampleFastq = {
    {"read1/1", "sample=A", "ACGTNacgt", "IIIII####"},
    {"read2", "", "GGGG", "!!!!"},
    {"read3", "extra words here", "T", "5"},
};

}  // namespace

TEST_CASE("FASTA: multi-line, blank lines, lowercase, names and comments", "[io]") {
  const std::string path = (t::kDataDir / "sample.fa").string();
  CHECK(t::read_records(path) == kSampleFasta);

  SequenceReader reader(path);
  SequenceRecord rec;
  REQUIRE(reader.next(rec));
  CHECK(reader.format() == SequenceFormat::fasta);
}

TEST_CASE("FASTA with CRLF line endings reads like LF", "[io]") {
  t::ScratchDir dir;
  std::string crlf;
  for (const char c : t::slurp((t::kDataDir / "sample.fa").string())) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  REQUIRE(crlf.find("\r\n") != std::string::npos);
  CHECK(t::read_records(dir.write("crlf.fa", crlf)) == kSampleFasta);
}

// Some Windows editors start a text file with a UTF-8 byte-order mark; it
// used to be refused as "not FASTA or FASTQ (first byte 0xef)".
TEST_CASE("a UTF-8 byte-order mark before the first record is skipped", "[io]") {
  t::ScratchDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  const std::string fasta = t::slurp((t::kDataDir / "sample.fa").string());
  CHECK(t::read_records(dir.write("bom.fa", bom + fasta)) == kSampleFasta);
  CHECK(t::read_records(t::write_gzip(dir.path("bom.fa.gz"), bom + fasta)) == kSampleFasta);
  const std::string fastq = t::slurp((t::kDataDir / "sample.fq").string());
  CHECK(t::read_records(dir.write("bom.fq", bom + fastq)) ==
        t::read_records(dir.write("plain.fq", fastq)));
  // Only at the very start: elsewhere the bytes are what they are (here,
  // the end of the last sequence line before '>x').
  const auto late = t::read_records(dir.write("late.fa", fasta + bom + "\n>x\nACGT\n"));
  REQUIRE(late.size() == kSampleFasta.size() + 1);
  CHECK(late[late.size() - 2].seq.ends_with(bom));
}

TEST_CASE("FASTA header splitting", "[io]") {
  t::ScratchDir dir;
  const auto records =
      t::read_records(dir.write("headers.fa", ">a\t \tx y\tz \n>b \nAC\n>c d\nG\n"));
  REQUIRE(records.size() == 3);
  // The comment starts after the one blank that ends the name, as kseq (and
  // so bwa index's .ann) splits a header: further blanks are kept.
  CHECK(records[0] == SequenceRecord{"a", " \tx y\tz ", "", ""});
  CHECK(records[1] == SequenceRecord{"b", "", "AC", ""});
  CHECK(records[2] == SequenceRecord{"c", "d", "G", ""});
}

TEST_CASE("FASTQ: records, '+' repeating the name, blank line between records", "[io]") {
  const std::string path = (t::kDataDir / "sample.fq").string();
  CHECK(t::read_records(path) == kSampleFastq);

  SequenceReader reader(path);
  SequenceRecord rec;
  REQUIRE(reader.next(rec));
  CHECK(reader.format() == SequenceFormat::fastq);
}

TEST_CASE("FASTQ with CRLF, leading blank lines and no final newline", "[io]") {
  t::ScratchDir dir;
  const std::string path =
      dir.write("crlf.fq", "\r\n\r\n@a x\r\nACGT\r\n+\r\nIIII\r\n\r\n@b\r\nGG\r\n+b\r\n#!");
  CHECK(t::read_records(path) ==
        std::vector<SequenceRecord>{{"a", "x", "ACGT", "IIII"}, {"b", "", "GG", "#!"}});
}

TEST_CASE("FASTQ record with an empty sequence", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("empty.fq", "@a\n\n+\n\n@b\nA\n+\nI\n");
  CHECK(t::read_records(path) ==
        std::vector<SequenceRecord>{{"a", "", "", ""}, {"b", "", "A", "I"}});
}

TEST_CASE("inputs without records give no records and no error", "[io]") {
  t::ScratchDir dir;
  for (const std::string content : {"", "\n", "\n\r\n\n"}) {
    const std::string path = dir.write("none.fa", content);
    CAPTURE(content);
    CHECK(t::read_records(path).empty());
    BatchReader batches(path);
    CHECK(batches.next() == nullptr);
    CHECK(read_all(path).empty());
  }
}

TEST_CASE("batch layout: offsets, names, comments, qualities", "[io]") {
  const auto batch = read_all((t::kDataDir / "sample.fq").string());
  REQUIRE(batch.size() == 3);
  CHECK(batch.has_quality());
  CHECK(batch.first_record == 0);
  CHECK(std::string(batch.bases.begin(), batch.bases.end()) == "ACGTNacgtGGGGT");
  CHECK(std::string(batch.quals.begin(), batch.quals.end()) == "IIIII####!!!!5");
  CHECK(batch.offsets == std::vector<std::uint64_t>{0, 9, 13, 14});
  CHECK(batch.total_bases() == 14);
  CHECK(batch.length(1) == 4);
  CHECK(batch.sequence(1) == "GGGG");
  CHECK(batch.quality(2) == "5");
  CHECK(batch.names == "read1/1read2read3");
  CHECK(batch.name_offsets == std::vector<std::uint32_t>{0, 7, 12, 17});
  CHECK(batch.name(2) == "read3");
  CHECK(batch.comment(0) == "sample=A");
  CHECK(batch.comment(1).empty());
  CHECK(t::records_of(batch) == kSampleFastq);

  const auto fasta = read_all((t::kDataDir / "sample.fa").string());
  CHECK_FALSE(fasta.has_quality());
  CHECK(fasta.quals.empty());
  CHECK(fasta.quality(0).empty());
  CHECK(t::records_of(fasta) == kSampleFasta);
}

TEST_CASE("lines longer than the read buffer and records across refills", "[io]") {
  t::ScratchDir dir;
  // One 10 MiB line (more than the 4 MiB starting buffer) between short records.
  std::string long_seq(10u << 20, 'A');
  for (std::size_t i = 0; i < long_seq.size(); i += 7) long_seq[i] = 'c';
  const std::string fasta = dir.write("long.fa", ">s1\nAC\n>big\n" + long_seq + "\n>s3\nGT\n");
  const auto records = t::read_records(fasta);
  REQUIRE(records.size() == 3);
  CHECK(records[1].seq == long_seq);
  CHECK(records[2] == SequenceRecord{"s3", "", "GT", ""});

  // ~10 MB of FASTQ: records straddle every 4 MiB refill boundary.
  const std::string text = t::make_fastq(60000);
  const auto all = read_all(dir.write("many.fq", text));
  REQUIRE(all.size() == 60000);
  CHECK(all.name(59999) == "r60000");
  CHECK(all.comment(59999) == "sample=" + std::to_string(59999 % 7));
  CHECK(all.length(59999) == 1 + 59999 % 150);
  std::size_t text_bases = 0;
  for (std::size_t i = 0; i < 60000; ++i) text_bases += 1 + i % 150;
  CHECK(all.total_bases() == text_bases);
}
