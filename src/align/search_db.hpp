// The seqfuse search database (.sfdb, written by `seqfuse align-db`): a
// TARGET set read, checked and encoded once, which align-sw / align-nw map
// and hand to the engines as they are, with no parsing. All integers are
// little-endian; every section starts at a multiple of 64 bytes.
//
//   header (256 bytes)          magic, version, alphabet, counts, section offsets
//   offsets   u64[records + 1]  record k holds codes [offsets[k], offsets[k + 1])
//   name_offsets u32[records + 1] record k's name is names[name_offsets[k], ...)
//   names     bytes             names back to back (as the FASTA reader gives them)
//   codes     u8[residues]      letter codes, indices into the alphabet's letters
//   checksums u64[blocks]       CRC-64/XZ of each block_bytes of [256, checksums)
//
// Records stay in file order: --db-part, the parts of a GPU search larger
// than the device and the workers of --device gpu:0,1 each take a contiguous
// range of the targets in that order, and ties between equal scores go to
// the earlier target; the GPU sorts each part by length as it uploads it.
// The header's own CRC-64 covers header bytes [0, 248) and the checksum
// table, so any flipped bit is caught. A change of layout bumps the version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "align/scoring.hpp"
#include "core/regular_file.hpp"
#include "io/batch.hpp"

namespace seqfuse {
class OutputFile;
}

namespace seqfuse::align {

inline constexpr char kSearchDbMagic[8] = {'S', 'F', 'S', 'E', 'A', 'R', 'C', 'H'};
inline constexpr std::uint32_t kSearchDbVersion = 1;
inline constexpr std::size_t kSearchDbHeaderBytes = 256;
// Checksummed blocks: small enough that every thread gets many, large
// enough that the table stays small (1.8 G residues: 108 entries).
inline constexpr std::uint64_t kSearchDbBlockBytes = std::uint64_t{16} << 20;

// Whether `path` is a regular file that starts with the magic (a FIFO, stdin
// or an unreadable path: false, and the FASTA reader reports it).
[[nodiscard]] bool is_search_db(const std::string& path);

// What a database says about itself.
struct SearchDbInfo {
  std::uint64_t records = 0;
  std::uint64_t residues = 0;
  std::string letters;      // the alphabet, code k is letters[k]
  std::string scheme_name;  // the scheme it was encoded for (messages only)
  bool dna = false;         // built as DNA (--alphabet dna or auto on DNA)
};

// Writes `targets` (encoded for `scheme`) with the names of `batch` to
// `out` (committed by the caller). batch and targets hold the same records.
void write_search_db(OutputFile& out, const ScoringScheme& scheme, bool dna,
                     const io::SequenceBatch& batch, const EncodedSequences& targets);

// Recomputes every checksum of a database image in place (blocks, table,
// header), as far as its header allows: the fuzz harness and tests use it so
// that mutated contents reach the structural checks behind the checksums.
void reseal_search_db(std::span<std::uint8_t> image) noexcept;

// A database mapped read-only and checked whole: header, section bounds,
// every block's checksum (on `threads` threads), ascending offsets and every
// code inside the alphabet. Any problem throws seqfuse::Error naming the
// file in one line ("'x.sfdb' is truncated ...", "... is damaged ...", "...
// is a seqfuse search database of version 2; ...").
class SearchDb {
 public:
  SearchDb(const std::string& path, unsigned threads);
  ~SearchDb();
  SearchDb(const SearchDb&) = delete;
  SearchDb& operator=(const SearchDb&) = delete;

  [[nodiscard]] const SearchDbInfo& info() const noexcept { return info_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] std::span<const std::uint64_t> offsets() const noexcept { return offsets_; }
  [[nodiscard]] std::span<const std::uint32_t> name_offsets() const noexcept {
    return name_offsets_;
  }
  [[nodiscard]] std::string_view names() const noexcept { return names_; }
  [[nodiscard]] Codes codes() const noexcept { return codes_; }
  [[nodiscard]] std::string_view name(std::size_t k) const noexcept {
    return names_.substr(name_offsets_[k], name_offsets_[k + 1] - name_offsets_[k]);
  }

  // Throws Error unless `scheme` encodes letters as the database does.
  void check_scheme(const ScoringScheme& scheme) const;

 private:
  void parse_header(unsigned threads);
  [[noreturn]] void fail(const std::string& what);

  std::string path_;
  MappedRegularFile file_;
  const char* map_ = file_.data();
  std::size_t map_bytes_ = file_.size();
  SearchDbInfo info_;
  std::span<const std::uint64_t> offsets_;
  std::span<const std::uint32_t> name_offsets_;
  std::string_view names_;
  Codes codes_;
};

}  // namespace seqfuse::align
