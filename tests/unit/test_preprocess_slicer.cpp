// fastq-trim's sliced reading (FastqSlicer + parse_records) against the
// record-at-a-time reader: the same records, bytes and errors for random
// FASTQ with every line-end form fastp accepts, at any chunk size.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "preprocess/fastq_records.hpp"
#include "preprocess/fastq_slicer.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::preprocess;
using seqfuse::test::TempDir;

namespace {

struct Parsed {
  std::vector<std::string> fields;  // header, seq, plus, qual of each record, in order
  std::string error;                // "" when the whole input parsed
};

void add(Parsed& p, const ReadChunk& chunk) {
  for (const FastqRecord& r : chunk.records) {
    p.fields.emplace_back(chunk.header(r));
    p.fields.emplace_back(chunk.seq(r));
    p.fields.emplace_back(chunk.plus(r));
    p.fields.emplace_back(chunk.qual(r));
  }
}

Parsed read_serially(const std::string& path, bool phred64) {
  Parsed p;
  try {
    FastqRecordReader reader(path, phred64);
    ReadChunk chunk;
    while (reader.next(chunk)) {
    }
    add(p, chunk);
  } catch (const seqfuse::Error& e) {
    p.error = e.what();
  }
  return p;
}

// `mapped`: the plain file mapped (its chunks borrow the mapping's bytes,
// and phred64's edits go to private copies of the pages) or read in pieces.
Parsed read_sliced(const std::string& path, std::size_t records, std::size_t max_bytes,
                   bool phred64, bool mapped) {
  Parsed p;
  try {
    FastqSlicer slicer(path, mapped);
    CHECK(slicer.mapped() == (mapped && std::filesystem::file_size(path) > 0));
    ReadChunk chunk;
    while (slicer.slice(chunk, records, max_bytes) > 0) {
      parse_records(chunk, slicer.display_name(), phred64);
      add(p, chunk);
    }
  } catch (const seqfuse::Error& e) {
    p.error = e.what();
  }
  return p;
}

// Random records with CRLF or LF line ends (one record in `crlf`), blank
// lines between records (one in `blank`), empty reads, and sometimes no line
// end at the very end.
std::string random_fastq(std::mt19937& rng, int records, int crlf = 4, int blank = 6) {
  std::string text;
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int i = 0; i < records; ++i) {
    const std::string eol = pick(crlf) == 0 ? "\r\n" : "\n";
    while (pick(blank) == 0) text += pick(2) ? "\n" : "\r\n";
    const int length = pick(5) == 0 ? 0 : pick(300);
    std::string seq, qual;
    for (int j = 0; j < length; ++j) {
      seq += "ACGTN"[pick(5)];
      qual += static_cast<char>('@' + pick(40));
    }
    text += "@read" + std::to_string(i) + (pick(2) ? " 1:N:0:1" : "") + eol + seq + eol +
            (pick(3) ? "+" : "+read" + std::to_string(i)) + eol + qual + eol;
  }
  if (!text.empty() && pick(3) == 0) text.pop_back();  // no final line end
  return text;
}

// One fault at a random place: a line dropped, a quality character out of
// range, a quality cut short, a header without '@', the text cut anywhere.
std::string damaged(std::mt19937& rng, std::string text) {
  if (text.empty()) return text;
  const std::size_t at = rng() % text.size();
  switch (rng() % 5) {
    case 0: {
      const std::size_t end = text.find('\n', at);
      if (end != std::string::npos) text.erase(at, end + 1 - at);
      break;
    }
    case 1:
      text[at] = '\x07';
      break;
    case 2:
      text.insert(at, "\n");
      break;
    case 3:
      text[at] = 'x';
      break;
    default:
      text.resize(at);
  }
  return text;
}

}  // namespace

TEST_CASE("sliced FASTQ reading equals record-at-a-time reading", "[preprocess][slicer]") {
  TempDir dir;
  std::mt19937 rng(20261126);
  const std::string path = dir.file("r.fq").string();
  for (int round = 0; round < 300; ++round) {
    std::string text = random_fastq(rng, static_cast<int>(rng() % 40));
    if (round % 2 == 1) text = damaged(rng, text);
    std::ofstream(path, std::ios::binary) << text;
    const bool phred64 = round % 7 == 0;
    const Parsed serial = read_serially(path, phred64);
    for (const std::size_t records : {std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
      for (const std::size_t max_bytes : {std::size_t{1}, std::size_t{500}, std::size_t{1} << 30}) {
        INFO("round " << round << ", " << records << " records a chunk, max " << max_bytes);
        for (const bool mapped : {true, false}) {
          INFO((mapped ? "mapped" : "read in pieces"));
          const Parsed sliced = read_sliced(path, records, max_bytes, phred64, mapped);
          CHECK(sliced.error == serial.error);
          if (serial.error.empty()) CHECK(sliced.fields == serial.fields);
        }
      }
    }
  }
}

// Mostly clean input, which the slicer passes over in blocks (its fast
// path), with a rare CRLF record or blank line where it goes line by line.
TEST_CASE("sliced reading of mostly clean FASTQ equals record-at-a-time reading",
          "[preprocess][slicer]") {
  TempDir dir;
  std::mt19937 rng(20261127);
  const std::string path = dir.file("r.fq").string();
  for (int round = 0; round < 40; ++round) {
    std::string text = random_fastq(rng, 200 + static_cast<int>(rng() % 400), 150, 200);
    if (round % 4 == 3) text = damaged(rng, text);
    std::ofstream(path, std::ios::binary) << text;
    const Parsed serial = read_serially(path, false);
    for (const std::size_t records :
         {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{100000}}) {
      for (const std::size_t max_bytes :
           {std::size_t{1}, std::size_t{3000}, std::size_t{1} << 30}) {
        INFO("round " << round << ", " << records << " records a chunk, max " << max_bytes);
        for (const bool mapped : {true, false}) {
          INFO((mapped ? "mapped" : "read in pieces"));
          const Parsed sliced = read_sliced(path, records, max_bytes, false, mapped);
          CHECK(sliced.error == serial.error);
          if (serial.error.empty()) CHECK(sliced.fields == serial.fields);
        }
      }
    }
  }
}

TEST_CASE("the slicer cuts whole records and keeps the bytes as they stand",
          "[preprocess][slicer]") {
  TempDir dir;
  const std::string path = dir.file("r.fq").string();
  std::ofstream(path, std::ios::binary) << "\n@a\r\nAC\r\n+\r\nII\r\n\r\n@b\n\n+\n\n@c\nG\n+\nI";
  FastqSlicer slicer(path);
  ReadChunk chunk;
  REQUIRE(slicer.slice(chunk, 2, 1 << 20) == 2);
  CHECK(chunk.first_record == 0);
  CHECK(chunk.text == "@a\r\nAC\r\n+\r\nII\r\n@b\n\n+\n\n");  // blank lines between records dropped
  parse_records(chunk, slicer.display_name());
  REQUIRE(chunk.size() == 2);
  CHECK(chunk.seq(chunk.records[0]) == "AC");
  CHECK(chunk.records[1].length == 0);
  REQUIRE(slicer.slice(chunk, 2, 1 << 20) == 1);
  CHECK(chunk.first_record == 2);
  CHECK(chunk.text == "@c\nG\n+\nI");
  CHECK(slicer.slice(chunk, 2, 1 << 20) == 0);
  CHECK(slicer.records() == 3);
}

// A mapped input's chunks borrow the file's bytes: edits in place (phred64's
// conversion here, base correction in the engines) go to private copies and
// never reach the file; a UTF-8 byte-order mark is dropped as when read.
TEST_CASE("a mapped input is sliced without copying and never written", "[preprocess][slicer]") {
  TempDir dir;
  const std::string path = dir.file("r.fq").string();
  const std::string text = "\xEF\xBB\xBF@a\nACGT\n+\nhhhh\n@b\nGG\n+\nhh\n";
  std::ofstream(path, std::ios::binary) << text;
  FastqSlicer slicer(path);
  REQUIRE(slicer.mapped());
  ReadChunk chunk;
  REQUIRE(slicer.slice(chunk, 1, 1 << 20) == 1);
  CHECK(chunk.text.borrowed());
  CHECK(chunk.text == "@a\nACGT\n+\nhhhh\n");
  parse_records(chunk, slicer.display_name(), true);
  CHECK(chunk.qual(chunk.records[0]) == "IIII");  // phred+64 'h' (40) is phred+33 'I'
  REQUIRE(slicer.slice(chunk, 1, 1 << 20) == 1);
  CHECK(chunk.text == "@b\nGG\n+\nhh\n");
  CHECK(slicer.slice(chunk, 1, 1 << 20) == 0);
  std::ifstream in(path, std::ios::binary);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(after == text);
}
