// The k-mer database format (docs/kmer-db.md): write/read round trips for
// one- and two-word k-mers, binary-search lookups, and the errors for files
// that are truncated, damaged, of another version or not databases at all.
// Also the Jellyfish histo text.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "kmer/histogram.hpp"
#include "kmer/kmer_db.hpp"
#include "test_kmer_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::kmer;
namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

void spit(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// Writes `counts` (ascending letters) as a database in blocks of `block`
// k-mers; `encoded`: each block encoded and checksummed apart, as the merge's
// threads do (KmerDbWriter::write_encoded).
void write_db(const fs::path& path, const KmerDbInfo& info, const test::LetterCounts& counts,
              std::size_t block, bool encoded = false) {
  seqfuse::OutputFile out(path.string());
  KmerDbWriter writer(out, info);
  std::vector<std::uint64_t> words;
  std::vector<std::uint32_t> values;
  const auto flush = [&] {
    const RecordBlock records{info.k, words.data(), values.data(), values.size()};
    if (encoded) {
      std::string bytes(records.size * kmer_record_bytes(words_for_k(info.k)), '\0');
      encode_records(records, bytes.data());
      writer.write_encoded(bytes, kmer_db_checksum(0, bytes.data(), bytes.size()), records.size);
    } else {
      writer.write(records);
    }
    words.clear();
    values.clear();
  };
  for (const auto& [letters, count] : counts) {
    std::uint64_t packed[2] = {0, 0};
    REQUIRE(parse_kmer(letters, info.k, packed));
    words.insert(words.end(), packed, packed + words_for_k(info.k));
    values.push_back(static_cast<std::uint32_t>(count));
    if (values.size() == block) flush();
  }
  flush();
  writer.finish(12345, 678);
  out.commit();
}

test::LetterCounts read_db(const KmerDb& db) {
  test::LetterCounts all;
  db.for_each_block([&](const RecordBlock& block) {
    for (const auto& item : test::to_letters(block)) all.insert(item);
  });
  return all;
}

}  // namespace

TEST_CASE("a database reads back what was written, and answers lookups", "[kmer]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  const std::uint64_t seed = test::test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto reads = test::random_reads(rng, 100, 200);
  for (int k : {1, 7, 32, 33, 63}) {
    INFO("k=" << k);
    const test::LetterCounts counts = reference_counts(reads, k, true);
    KmerDbInfo info;
    info.k = k;
    info.canonical = k % 2 == 1;
    info.lower_count = 2;
    info.upper_count = 99;
    write_db(dir / "x.kdb", info, counts, 7);
    // Blocks encoded and checksummed apart give the same bytes.
    write_db(dir / "encoded.kdb", info, counts, 5, true);
    CHECK(slurp(dir / "encoded.kdb") == slurp(dir / "x.kdb"));
    const KmerDb db((dir / "x.kdb").string());
    CHECK(db.info().k == k);
    CHECK(db.info().canonical == info.canonical);
    CHECK(db.info().lower_count == 2);
    CHECK(db.info().upper_count == 99);
    CHECK(db.info().total_kmers == 12345);
    CHECK(db.info().distinct_kmers == 678);
    CHECK(db.size() == counts.size());
    CHECK(fs::file_size(dir / "x.kdb") == kKmerDbHeaderBytes +
                                              counts.size() * kmer_record_bytes(words_for_k(k)) +
                                              kKmerDbFooterBytes);
    CHECK(read_db(db) == counts);
    for (const auto& [letters, count] : counts) {
      std::uint64_t words[2] = {0, 0};
      REQUIRE(parse_kmer(letters, k, words));
      REQUIRE(db.count_of(words) == count);
    }
    // Absent k-mers: below the first, between, above the last.
    for (const std::string& probe : {std::string(static_cast<std::size_t>(k), 'A'),
                                     std::string(static_cast<std::size_t>(k), 'T'),
                                     std::string(static_cast<std::size_t>(k) - 1, 'C') + "G"}) {
      std::uint64_t words[2] = {0, 0};
      REQUIRE(parse_kmer(probe, k, words));
      const auto it = counts.find(probe);
      CHECK(db.count_of(words) == (it == counts.end() ? 0 : it->second));
    }
  }
}

TEST_CASE("an empty database is valid", "[kmer]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  KmerDbInfo info;
  info.k = 21;
  write_db(dir / "e.kdb", info, {}, 10);
  const KmerDb db((dir / "e.kdb").string());
  CHECK(db.size() == 0);
  CHECK(read_db(db).empty());
  std::uint64_t words[1] = {0};
  CHECK(db.count_of(words) == 0);
}

TEST_CASE("truncated, damaged and foreign files are refused with one clear error", "[kmer]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  KmerDbInfo info;
  info.k = 5;
  write_db(dir / "ok.kdb", info, {{"AAAAA", 3}, {"ACGTA", 1}, {"CCCCC", 9}}, 2);
  const std::string good = slurp(dir / "ok.kdb");
  const auto error_of = [&](const std::string& bytes) -> std::string {
    spit(dir / "bad.kdb", bytes);
    try {
      const KmerDb db((dir / "bad.kdb").string());
      (void)read_db(db);
    } catch (const seqfuse::Error& e) {
      return e.what();
    }
    return "no error";
  };
  using Catch::Contains;
  CHECK_THAT(error_of(good.substr(0, good.size() - 1)), Contains("is truncated (no end marker)"));
  CHECK_THAT(error_of(good.substr(0, 40)), Contains("is truncated (incomplete header)"));
  CHECK_THAT(error_of(good.substr(0, 64) + good.substr(64 + 12)),  // one record cut out
             Contains("is truncated or damaged"));
  CHECK_THAT(error_of(""), Contains("is not a seqfuse k-mer database"));
  CHECK_THAT(error_of(">read\nACGT\n"), Contains("is not a seqfuse k-mer database"));
  std::string other_version = good;
  other_version[8] = 3;
  CHECK_THAT(error_of(other_version), Contains("of version 3; this seqfuse reads version 2"));
  std::string version_1 = good;  // before checksums: refused, nothing vouches for it
  version_1[8] = 1;
  CHECK_THAT(error_of(version_1), Contains("of version 1, which has no checksum"));
  std::string bad_k = good;
  bad_k[12] = 64;
  CHECK_THAT(error_of(bad_k), Contains("has a damaged header"));
  std::string unsorted = good;  // swap the first two records
  std::swap_ranges(unsorted.begin() + 64, unsorted.begin() + 76, unsorted.begin() + 76);
  CHECK_THAT(error_of(unsorted), Contains("record 2 is out of order"));
  CHECK_THROWS_WITH(KmerDb((dir / "missing.kdb").string()), Contains("cannot open"));
}

// Damage that keeps the size right: found on open, before any lookup can
// answer wrongly from it (a swap used to make `query` print 0).
TEST_CASE("a damaged database is refused on open: checksum, order, stray bits", "[kmer]") {
  const TempDir scratch;
  const fs::path& dir = scratch.path();
  using Catch::Contains;
  for (int k : {5, 40}) {
    INFO("k=" << k);
    KmerDbInfo info;
    info.k = k;
    const std::string a(static_cast<std::size_t>(k), 'A'), c(static_cast<std::size_t>(k), 'C');
    write_db(dir / "ok.kdb", info, {{a, 3}, {"AC" + a.substr(2), 1}, {c, 9}}, 2);
    const std::string good = slurp(dir / "ok.kdb");
    const std::size_t rb = kmer_record_bytes(words_for_k(k));
    const std::size_t footer = good.size() - kKmerDbFooterBytes;
    // `bytes` as is, or with its checksum made right again (to reach the
    // record checks behind it, as a hand-made file would).
    const auto open_error = [&](std::string bytes, bool fix_checksum) -> std::string {
      if (fix_checksum) {
        std::uint64_t crc = kmer_db_checksum(0, bytes.data(), footer + kKmerDbChecksumOffset);
        for (int i = 0; i < 8; ++i)
          bytes[footer + kKmerDbChecksumOffset + i] = static_cast<char>(crc >> (8 * i));
      }
      spit(dir / "bad.kdb", bytes);
      try {
        const KmerDb db((dir / "bad.kdb").string());
      } catch (const seqfuse::Error& e) {
        return e.what();
      }
      return "no error";
    };
    CHECK(open_error(good, false) == "no error");
    std::string swapped = good;
    std::swap_ranges(swapped.begin() + 64, swapped.begin() + 64 + rb, swapped.begin() + 64 + rb);
    CHECK_THAT(open_error(swapped, false), Contains("is damaged"));
    CHECK_THAT(open_error(swapped, true), Contains("is damaged: record 2 is out of order"));
    std::string flipped = good;  // one bit of the last record's count
    flipped[64 + 3 * rb - 4] ^= 0x10;
    CHECK_THAT(open_error(flipped, false), Contains("is damaged (checksum mismatch)"));
    std::string totals = good;  // the totals are covered too
    totals[footer + 9] ^= 1;
    CHECK_THAT(open_error(totals, false), Contains("is damaged (checksum mismatch)"));
    std::string high = good;  // the top bit of word 0: above any k-mer of k < 32 or k - 32 < 32
    high[64 + 2 * rb + 7] = static_cast<char>(high[64 + 2 * rb + 7] | 0x80);
    CHECK_THAT(open_error(high, false), Contains("is damaged"));
    CHECK_THAT(open_error(high, true), Contains("record 3 has bits set above its k-mer"));
    std::string zero = good;
    std::fill_n(zero.begin() + 64 + rb - 4, 4, '\0');
    CHECK_THAT(open_error(zero, true), Contains("record 1 has count 0"));
  }
  // CRC-64/XZ's check value: the checksum is the documented one.
  CHECK(kmer_db_checksum(0, "123456789", 9) == 0x995DC9BBDF1939FAull);
}

TEST_CASE("a k-mer database that is a FIFO or a directory is refused, not waited on", "[kmer]") {
  const TempDir scratch;
  const fs::path fifo = scratch.path() / "db.kdb";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  using Catch::Contains;
  // Without O_NONBLOCK this open would wait for a writer forever.
  CHECK_THROWS_WITH(KmerDb(fifo.string()), Contains("k-mer database '" + fifo.string() +
                                                    "' is a FIFO, not a regular file"));
  CHECK_THROWS_WITH(KmerDb(scratch.path().string()),
                    Contains("is a directory, not a regular file"));
}

TEST_CASE("histogram text is jellyfish histo's, catch-all bucket included", "[kmer]") {
  CountHistogram h;
  for (std::uint32_t count : {1u, 1u, 2u, 5u, 9999u, 10000u, 10001u, 10002u, 70000u}) h.add(count);
  h.add(4294967295u, 2);
  CHECK(h.distinct() == 11);
  // Defaults (-l 1 -h 10000 -i 1): counts above 10000 land in bucket 10001.
  CHECK(h.jellyfish_text() == "1 2\n2 1\n5 1\n9999 1\n10000 1\n10001 5\n");
  // Low above 1: what is below it goes to the first bucket, labelled low - 1.
  HistoParams p;
  p.low = 3;
  p.high = 6;
  CHECK(h.jellyfish_text(p) == "2 3\n5 1\n7 7\n");
  p.increment = 2;  // base 1, ceil 8: buckets 1, 3, 5 and the catch-all 7
  CHECK(h.jellyfish_text(p) == "1 3\n5 1\n7 7\n");
  p = {};
  p.high = 3;
  p.full = true;
  CHECK(h.jellyfish_text(p) == "0 0\n1 2\n2 1\n3 0\n4 8\n");
  p.high = 0;
  CHECK_THROWS_AS(h.jellyfish_text(p), seqfuse::UsageError);
}
