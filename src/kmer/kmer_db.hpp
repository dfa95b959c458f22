// The seqfuse k-mer database (-o DB): a header, the counted k-mers as sorted
// fixed-width little-endian records, and a footer with the totals. The
// format is specified in docs/kmer-db.md; this file and that page change
// together, and a change of layout bumps kKmerDbVersion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "kmer/record_block.hpp"

namespace seqfuse::kmer {

inline constexpr char kKmerDbMagic[8] = {'S', 'F', 'K', 'M', 'E', 'R', 'D', 'B'};
inline constexpr char kKmerDbEndMagic[8] = {'S', 'F', 'K', 'M', 'E', 'N', 'D', '1'};
// Version 2 added the checksum (footer bytes 24-31); version 1 files are
// refused, since nothing could vouch for their records.
inline constexpr std::uint32_t kKmerDbVersion = 2;
inline constexpr std::size_t kKmerDbHeaderBytes = 64;
inline constexpr std::size_t kKmerDbFooterBytes = 48;

// Bytes of one record: the k-mer's words, then its 32-bit count.
[[nodiscard]] constexpr std::size_t kmer_record_bytes(int words_per_kmer) noexcept {
  return 8 * static_cast<std::size_t>(words_per_kmer) + 4;
}

// The database checksum: CRC-64/XZ (ISA-L's crc64_ecma_refl) of `size`
// bytes, continuing from `crc` (0 to start). It covers the header, the
// records and the footer's first 24 bytes, in file order.
[[nodiscard]] std::uint64_t kmer_db_checksum(std::uint64_t crc, const void* data,
                                             std::size_t size) noexcept;
inline constexpr std::size_t kKmerDbChecksumOffset = 24;  // in the footer

// Records in the on-disk layout (also the layout of spilled runs).
void encode_records(const RecordBlock& block, char* out) noexcept;
// Decodes n records into words (n * words_per_kmer) and counts (n).
void decode_records(const char* in, std::size_t n, int words_per_kmer, std::uint64_t* words,
                    std::uint32_t* counts) noexcept;

struct KmerDbInfo {
  int k = 0;
  bool canonical = true;
  std::uint32_t lower_count = 1;           // -L in force when written (1: none)
  std::uint32_t upper_count = UINT32_MAX;  // -U in force when written (UINT32_MAX: none)
  std::uint64_t records = 0;               // k-mers stored (after -L/-U)
  std::uint64_t total_kmers = 0;           // k-mer occurrences counted in the input
  std::uint64_t distinct_kmers = 0;        // distinct k-mers in the input, before -L/-U

  [[nodiscard]] int words_per_kmer() const noexcept { return words_for_k(k); }
};

// Streams a database into an OutputFile (which the caller commits). Blocks
// must arrive in ascending order; the writer does not re-check.
class KmerDbWriter {
 public:
  // Writes the header (k, canonical, filters of `info`).
  KmerDbWriter(OutputFile& out, const KmerDbInfo& info);
  void write(const RecordBlock& block);
  // Records encoded elsewhere (encode_records, on another thread), with
  // their checksum from 0 (kmer_db_checksum(0, ...)): as write() of them.
  void write_encoded(std::string_view records, std::uint64_t records_checksum, std::uint64_t count);
  // Writes the footer: the records written and the input totals.
  void finish(std::uint64_t total_kmers, std::uint64_t distinct_kmers);

 private:
  void put(const char* data, std::size_t size);

  OutputFile& out_;
  KmerDbInfo info_;
  std::vector<char> buffer_;
  std::uint64_t checksum_ = 0;  // of everything written so far
};

// A database opened for reading (memory-mapped). The constructor checks the
// header, the version, the footer and the file size, then reads the whole
// file once (at read bandwidth) to verify the checksum and that the records
// are strictly ascending, with no bits set above the k-mer and no count 0,
// so lookups can trust the order. It throws seqfuse::Error naming the file
// when it is not a regular file, not a seqfuse k-mer database, of another
// version, truncated or damaged.
class KmerDb {
 public:
  explicit KmerDb(const std::string& path);
  ~KmerDb();
  KmerDb(const KmerDb&) = delete;
  KmerDb& operator=(const KmerDb&) = delete;

  [[nodiscard]] const KmerDbInfo& info() const noexcept { return info_; }
  [[nodiscard]] std::uint64_t size() const noexcept { return info_.records; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  // Every record in ascending order, a block at a time.
  void for_each_block(const std::function<void(const RecordBlock&)>& consume) const;

  // The count of a packed k-mer (words_per_kmer() words), 0 when absent:
  // a binary search over the records.
  [[nodiscard]] std::uint32_t count_of(const std::uint64_t* words) const noexcept;

 private:
  void read_kmer(std::uint64_t index, std::uint64_t* words) const noexcept;
  // The checksum and the records' order and bits, in one pass.
  void verify(const std::string& quoted) const;

  std::string path_;
  KmerDbInfo info_;
  MappedRegularFile file_;
  const char* map_ = file_.data();
  std::size_t map_bytes_ = file_.size();
};

}  // namespace seqfuse::kmer
