// Helpers shared by the tests/unit/test_io_*.cpp files: scratch files in a
// temporary folder, gzip and BGZF copies made with zlib and htslib, and readers
// that collect everything into records.
#pragma once

#include <htslib/bgzf.h>
#include <htslib/hts_log.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/batch.hpp"
#include "test_data.hpp"
#include "io/batch_reader.hpp"
#include "io/sequence_reader.hpp"
#include "io/sequence_record.hpp"

namespace seqfuse::io::test {

namespace fs = std::filesystem;

inline const fs::path kDataDir = seqfuse::test::data_dir() / "io";

// A fresh folder, removed with everything in it when the object goes away.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "seqfuse-io-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes `content` to a file in the folder; returns its path.
  [[nodiscard]] std::string write(const std::string& name, const std::string& content) const {
    const fs::path file = path_ / name;
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }
  [[nodiscard]] std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// bgzf_compression() of a file: 0 plain, 1 gzip, 2 BGZF.
inline int compression_of(const std::string& path) {
  BGZF* in = bgzf_open(path.c_str(), "r");
  REQUIRE(in != nullptr);
  const int compression = bgzf_compression(in);
  REQUIRE(bgzf_close(in) == 0);
  return compression;
}

// Writes with htslib's BGZF layer in `mode` (which also produces plain gzip,
// so the tests need no zlib of their own).
inline std::string write_compressed(const std::string& path, const std::string& content,
                                    const char* mode, int expected_compression) {
  BGZF* out = bgzf_open(path.c_str(), mode);
  REQUIRE(out != nullptr);
  REQUIRE(bgzf_write(out, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
  REQUIRE(bgzf_close(out) == 0);
  REQUIRE(compression_of(path) == expected_compression);
  return path;
}

// A single-stream gzip file, as `gzip` writes it (not BGZF).
inline std::string write_gzip(const std::string& path, const std::string& content) {
  return write_compressed(path, content, "wg", 1);
}

// A BGZF file, as `bgzip` writes it (64 KiB blocks plus the EOF block).
inline std::string write_bgzf(const std::string& path, const std::string& content) {
  return write_compressed(path, content, "w", 2);
}

// Silences htslib's own "[E::...]" stderr lines while a test provokes them.
class QuietHtslib {
 public:
  QuietHtslib() : saved_(hts_get_log_level()) { hts_set_log_level(HTS_LOG_OFF); }
  ~QuietHtslib() { hts_set_log_level(saved_); }
  QuietHtslib(const QuietHtslib&) = delete;
  QuietHtslib& operator=(const QuietHtslib&) = delete;

 private:
  htsLogLevel saved_;
};

inline std::vector<SequenceRecord> read_records(const std::string& path) {
  SequenceReader reader(path);
  std::vector<SequenceRecord> records;
  SequenceRecord rec;
  while (reader.next(rec)) records.push_back(rec);
  return records;
}

inline SequenceRecord record_of(const SequenceBatch& batch, std::size_t i) {
  return {std::string(batch.name(i)), std::string(batch.comment(i)), std::string(batch.sequence(i)),
          std::string(batch.quality(i))};
}

inline std::vector<SequenceRecord> records_of(const SequenceBatch& batch) {
  std::vector<SequenceRecord> records;
  for (std::size_t i = 0; i < batch.size(); ++i) records.push_back(record_of(batch, i));
  return records;
}

// Everything a BatchReader delivers, plus the batches' shapes for boundary checks.
struct BatchRun {
  std::vector<SequenceRecord> records;
  std::vector<std::size_t> batch_sizes;
  std::vector<std::uint64_t> first_records;
  std::vector<std::uint64_t> batch_bases;
};

inline BatchRun read_batches(const std::string& path, BatchLimits limits) {
  BatchReader reader(path, limits);
  BatchRun run;
  while (const SequenceBatch* batch = reader.next()) {
    run.batch_sizes.push_back(batch->size());
    run.first_records.push_back(batch->first_record);
    run.batch_bases.push_back(batch->total_bases());
    for (const auto& rec : records_of(*batch)) run.records.push_back(rec);
  }
  return run;
}

// `count` FASTQ records r1..rN whose lengths cycle through 1..150.
inline std::string make_fastq(std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length = 1 + i % 150;
    text += "@r" + std::to_string(i + 1) + " sample=" + std::to_string(i % 7) + "\n";
    for (std::size_t j = 0; j < length; ++j) text += "ACGTN"[(i + j) % 5];
    text += "\n+\n";
    for (std::size_t j = 0; j < length; ++j) text += static_cast<char>('!' + (i * j) % 41);
    text += '\n';
  }
  return text;
}

}  // namespace seqfuse::io::test

namespace Catch {
template <>
struct StringMaker<seqfuse::io::SequenceRecord> {
  static std::string convert(const seqfuse::io::SequenceRecord& rec) {
    return "{name '" + rec.name + "', comment '" + rec.comment + "', seq '" + rec.seq +
           "', qual '" + rec.qual + "'}";
  }
};
}  // namespace Catch
