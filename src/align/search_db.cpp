#include "align/search_db.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/parallel.hpp"
#include "core/regular_file.hpp"
#include "io/crc64.hpp"

namespace seqfuse::align {
namespace {

using io::crc64;

// The sections are mapped and read as arrays of integers in place.
static_assert(std::endian::native == std::endian::little,
              "the search database is read in place as little-endian integers");

// Header fields (byte offsets).
enum : std::size_t {
  kVersionAt = 8,
  kHeaderBytesAt = 12,
  kFlagsAt = 16,
  kLetterCountAt = 20,
  kRecordsAt = 24,
  kResiduesAt = 32,
  kOffsetsAt = 40,
  kNameOffsetsAt = 48,
  kNamesAt = 56,
  kNamesBytesAt = 64,
  kCodesAt = 72,
  kChecksumsAt = 80,
  kBlockBytesAt = 88,
  kFileBytesAt = 96,
  kSchemeNameBytesAt = 104,
  kLettersAt = 112,     // 64 bytes
  kSchemeNameAt = 176,  // 64 bytes
  kTableCrcAt = 240,    // CRC-64 of the checksum table
  kHeaderCrcAt = 248,   // CRC-64 of header bytes [0, 248)
};
constexpr std::uint32_t kFlagDna = 1;
constexpr std::size_t kNameField = 64;

template <class T>
T get(const char* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void put(char* p, T v) noexcept {
  std::memcpy(p, &v, sizeof v);
}

constexpr std::uint64_t round_up(std::uint64_t n) noexcept {
  return (n + 63) / 64 * 64;
}

// The payload as pieces laid end to end (null data: zeros, for padding),
// so block checksums are computed before anything is written: the header
// that holds their CRC comes first in the file.
struct Piece {
  const char* data;
  std::uint64_t size;
};

std::uint64_t crc_of_range(std::span<const Piece> pieces, std::uint64_t begin, std::uint64_t end) {
  static const char zeros[64] = {};
  std::uint64_t crc = 0, at = 0;
  for (const Piece& piece : pieces) {
    const std::uint64_t from = std::max(begin, at), to = std::min(end, at + piece.size);
    if (from < to) {
      if (piece.data) {
        crc = crc64(crc, piece.data + (from - at), to - from);
      } else {
        for (std::uint64_t k = from; k < to; k += sizeof zeros)
          crc = crc64(crc, zeros, std::min<std::uint64_t>(sizeof zeros, to - k));
      }
    }
    at += piece.size;
    if (at >= end) break;
  }
  return crc;
}

}  // namespace

bool is_search_db(const std::string& path) {
  if (path == "-") return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  char magic[sizeof kSearchDbMagic] = {};
  const bool match = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                     ::pread(fd, magic, sizeof magic, 0) == static_cast<ssize_t>(sizeof magic) &&
                     std::memcmp(magic, kSearchDbMagic, sizeof magic) == 0;
  ::close(fd);
  return match;
}

void write_search_db(OutputFile& out, const ScoringScheme& scheme, bool dna,
                     const io::SequenceBatch& batch, const EncodedSequences& targets) {
  const std::uint64_t records = targets.size();
  if (batch.size() != records) throw Error("internal: names and codes of a database differ");
  if (batch.names.size() > UINT32_MAX)
    throw Error("the names of '" + out.path() + "' take more than 4 GiB");
  const Codes codes = targets.flat_codes();
  const std::span<const std::uint64_t> offsets = targets.offsets();
  const std::span<const std::uint32_t> name_offsets = batch.name_offsets;

  // Section offsets, each at a multiple of 64.
  const std::uint64_t offsets_at = kSearchDbHeaderBytes;
  const std::uint64_t name_offsets_at = round_up(offsets_at + offsets.size_bytes());
  const std::uint64_t names_at = round_up(name_offsets_at + name_offsets.size_bytes());
  const std::uint64_t codes_at = round_up(names_at + batch.names.size());
  const std::uint64_t checksums_at = round_up(codes_at + codes.size());
  const std::uint64_t payload = checksums_at - kSearchDbHeaderBytes;
  const std::uint64_t blocks = (payload + kSearchDbBlockBytes - 1) / kSearchDbBlockBytes;
  const std::uint64_t file_bytes = checksums_at + blocks * 8;

  const auto as_chars = [](const void* p) { return static_cast<const char*>(p); };
  const std::vector<Piece> pieces = {
      {as_chars(offsets.data()), offsets.size_bytes()},
      {nullptr, name_offsets_at - (offsets_at + offsets.size_bytes())},
      {as_chars(name_offsets.data()), name_offsets.size_bytes()},
      {nullptr, names_at - (name_offsets_at + name_offsets.size_bytes())},
      {batch.names.data(), batch.names.size()},
      {nullptr, codes_at - (names_at + batch.names.size())},
      {as_chars(codes.data()), codes.size()},
      {nullptr, checksums_at - (codes_at + codes.size())},
  };
  std::vector<std::uint64_t> checksums(blocks);
  parallel_chunks(blocks, 1, cpu_budget(), [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b)
      checksums[b] = crc_of_range(pieces, b * kSearchDbBlockBytes,
                                  std::min(payload, (b + 1) * kSearchDbBlockBytes));
  });

  char header[kSearchDbHeaderBytes] = {};
  std::memcpy(header, kSearchDbMagic, sizeof kSearchDbMagic);
  put<std::uint32_t>(header + kVersionAt, kSearchDbVersion);
  put<std::uint32_t>(header + kHeaderBytesAt, kSearchDbHeaderBytes);
  put<std::uint32_t>(header + kFlagsAt, dna ? kFlagDna : 0);
  put<std::uint32_t>(header + kLetterCountAt, static_cast<std::uint32_t>(scheme.alphabet_size()));
  put<std::uint64_t>(header + kRecordsAt, records);
  put<std::uint64_t>(header + kResiduesAt, codes.size());
  put<std::uint64_t>(header + kOffsetsAt, offsets_at);
  put<std::uint64_t>(header + kNameOffsetsAt, name_offsets_at);
  put<std::uint64_t>(header + kNamesAt, names_at);
  put<std::uint64_t>(header + kNamesBytesAt, batch.names.size());
  put<std::uint64_t>(header + kCodesAt, codes_at);
  put<std::uint64_t>(header + kChecksumsAt, checksums_at);
  put<std::uint64_t>(header + kBlockBytesAt, kSearchDbBlockBytes);
  put<std::uint64_t>(header + kFileBytesAt, file_bytes);
  const std::string_view name = std::string_view(scheme.name()).substr(0, kNameField);
  put<std::uint64_t>(header + kSchemeNameBytesAt, name.size());
  std::memcpy(header + kLettersAt, scheme.letters().data(), scheme.alphabet_size());
  std::memcpy(header + kSchemeNameAt, name.data(), name.size());
  put<std::uint64_t>(header + kTableCrcAt, crc64(0, checksums.data(), checksums.size() * 8));
  put<std::uint64_t>(header + kHeaderCrcAt, crc64(0, header, kHeaderCrcAt));

  out.write(header, sizeof header);
  static const char zeros[64] = {};
  for (const Piece& piece : pieces) {
    if (piece.data)
      out.write(piece.data, piece.size);
    else
      out.write(zeros, piece.size);
  }
  out.write(checksums.data(), checksums.size() * 8);
}

void reseal_search_db(std::span<std::uint8_t> image) noexcept {
  if (image.size() < kSearchDbHeaderBytes) return;
  char* h = reinterpret_cast<char*>(image.data());
  const auto checksums_at = get<std::uint64_t>(h + kChecksumsAt);
  const auto block_bytes = get<std::uint64_t>(h + kBlockBytesAt);
  if (checksums_at >= kSearchDbHeaderBytes && checksums_at <= image.size() && block_bytes > 0) {
    const std::uint64_t payload = checksums_at - kSearchDbHeaderBytes;
    const std::uint64_t blocks = payload / block_bytes + (payload % block_bytes != 0);
    if (blocks <= (image.size() - checksums_at) / 8) {
      for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::uint64_t from = kSearchDbHeaderBytes + b * block_bytes;
        const std::uint64_t to = std::min(checksums_at, from + block_bytes);
        put<std::uint64_t>(h + checksums_at + b * 8, crc64(0, h + from, to - from));
      }
      put<std::uint64_t>(h + kTableCrcAt, crc64(0, h + checksums_at, blocks * 8));
    }
  }
  put<std::uint64_t>(h + kHeaderCrcAt, crc64(0, h, kHeaderCrcAt));
}

SearchDb::SearchDb(const std::string& path, unsigned threads)
    : path_(path), file_(path, "search database") {
  parse_header(threads);
}

SearchDb::~SearchDb() = default;

void SearchDb::fail(const std::string& what) {
  throw Error("'" + path_ + "' " + what);
}

void SearchDb::parse_header(unsigned threads) {
  const std::size_t size = map_bytes_;
  if (size < sizeof kSearchDbMagic || std::memcmp(map_, kSearchDbMagic, sizeof kSearchDbMagic) != 0)
    fail("is not a seqfuse search database (build one with 'seqfuse align-db')");
  if (size < kVersionAt + 4) fail("is truncated (incomplete header)");
  const auto version = get<std::uint32_t>(map_ + kVersionAt);
  if (version != kSearchDbVersion)
    fail("is a seqfuse search database of version " + std::to_string(version) +
         "; this seqfuse reads version " + std::to_string(kSearchDbVersion) +
         ": build it again with 'seqfuse align-db'");
  if (size < kSearchDbHeaderBytes) fail("is truncated (incomplete header)");
  const char* h = map_;
  const auto u64 = [h](std::size_t at) { return get<std::uint64_t>(h + at); };
  if (crc64(0, h, kHeaderCrcAt) != u64(kHeaderCrcAt)) fail("is damaged (header checksum mismatch)");
  // The header is as written: a size that differs is the file's.
  const std::uint64_t file_bytes = u64(kFileBytesAt);
  const std::uint64_t checksums_at = u64(kChecksumsAt);
  const std::uint64_t block_bytes = u64(kBlockBytesAt);
  if (file_bytes > size)
    fail("is truncated (" + std::to_string(size) + " of " + std::to_string(file_bytes) + " bytes)");
  if (file_bytes < size)
    fail("is damaged (" + std::to_string(size - file_bytes) + " bytes past its end)");
  if (checksums_at < kSearchDbHeaderBytes || checksums_at > size || block_bytes == 0 ||
      block_bytes % 64 != 0)
    fail("is damaged (inconsistent header)");
  const std::uint64_t payload = checksums_at - kSearchDbHeaderBytes;
  const std::uint64_t blocks = (payload + block_bytes - 1) / block_bytes;
  if ((size - checksums_at) % 8 != 0 || (size - checksums_at) / 8 != blocks)
    fail("is damaged (inconsistent header)");
  const char* table = map_ + checksums_at;
  if (crc64(0, table, blocks * 8) != u64(kTableCrcAt)) fail("is damaged (checksum table mismatch)");

  // Its values still must fit together.
  const auto flags = get<std::uint32_t>(h + kFlagsAt);
  const auto letter_count = get<std::uint32_t>(h + kLetterCountAt);
  const std::uint64_t records = u64(kRecordsAt), residues = u64(kResiduesAt);
  const std::uint64_t offsets_at = u64(kOffsetsAt), name_offsets_at = u64(kNameOffsetsAt);
  const std::uint64_t names_at = u64(kNamesAt), names_bytes = u64(kNamesBytesAt);
  const std::uint64_t codes_at = u64(kCodesAt), scheme_name_bytes = u64(kSchemeNameBytesAt);
  const auto fits = [&](std::uint64_t at, std::uint64_t count, std::uint64_t width,
                        std::uint64_t next) {
    return at % 64 == 0 && count <= (next - std::min(at, next)) / width;
  };
  if (get<std::uint32_t>(h + kHeaderBytesAt) != kSearchDbHeaderBytes || (flags & ~kFlagDna) ||
      letter_count == 0 || letter_count > ScoringScheme::kMaxAlphabet ||
      scheme_name_bytes > kNameField || records >= UINT32_MAX ||
      offsets_at != kSearchDbHeaderBytes || name_offsets_at < offsets_at ||
      names_at < name_offsets_at || codes_at < names_at || checksums_at < codes_at ||
      !fits(offsets_at, records + 1, 8, name_offsets_at) ||
      !fits(name_offsets_at, records + 1, 4, names_at) ||
      !fits(names_at, names_bytes, 1, codes_at) || !fits(codes_at, residues, 1, checksums_at))
    fail("is damaged (inconsistent header)");
  info_.records = records;
  info_.residues = residues;
  info_.dna = (flags & kFlagDna) != 0;
  info_.letters.assign(h + kLettersAt, letter_count);
  info_.scheme_name.assign(h + kSchemeNameAt, scheme_name_bytes);

  // Every block's checksum, and every code inside the alphabet (a code
  // indexes the scoring table on both engines), on all threads: the pass
  // also brings the mapped pages in.
  std::atomic<std::uint64_t> bad_block{UINT64_MAX};
  std::atomic<bool> bad_code{false};
  parallel_chunks(blocks, 1, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const std::uint64_t from = kSearchDbHeaderBytes + b * block_bytes;
      const std::uint64_t to = std::min(checksums_at, from + block_bytes);
      if (crc64(0, map_ + from, to - from) != get<std::uint64_t>(table + b * 8)) {
        std::uint64_t seen = bad_block.load();
        while (b < seen && !bad_block.compare_exchange_weak(seen, b)) {
        }
      }
      const std::uint64_t code_from = std::max(from, codes_at);
      const std::uint64_t code_to = std::min(to, codes_at + residues);
      std::uint8_t top = 0;
      for (std::uint64_t k = code_from; k < code_to; ++k)
        top = std::max(top, static_cast<std::uint8_t>(map_[k]));
      if (code_from < code_to && top >= letter_count) bad_code.store(true);
    }
  });
  if (bad_block.load() != UINT64_MAX) {
    const std::uint64_t b = bad_block.load();
    fail("is damaged (checksum mismatch in bytes " +
         std::to_string(kSearchDbHeaderBytes + b * block_bytes) + "-" +
         std::to_string(std::min(checksums_at, kSearchDbHeaderBytes + (b + 1) * block_bytes)) +
         ")");
  }
  if (bad_code.load()) fail("is damaged (a letter code outside its alphabet)");

  offsets_ = {reinterpret_cast<const std::uint64_t*>(map_ + offsets_at), records + 1};
  name_offsets_ = {reinterpret_cast<const std::uint32_t*>(map_ + name_offsets_at), records + 1};
  names_ = {map_ + names_at, names_bytes};
  codes_ = {reinterpret_cast<const std::uint8_t*>(map_ + codes_at), residues};
  if (offsets_.front() != 0 || offsets_.back() != residues || name_offsets_.front() != 0 ||
      name_offsets_.back() != names_bytes ||
      std::adjacent_find(offsets_.begin(), offsets_.end(), std::greater<>()) != offsets_.end() ||
      std::adjacent_find(name_offsets_.begin(), name_offsets_.end(), std::greater<>()) !=
          name_offsets_.end())
    fail("is damaged (record offsets out of order)");
  for (std::size_t k = 0; k < records; ++k)
    if (offsets_[k + 1] - offsets_[k] > UINT32_MAX)
      fail("is damaged (a record longer than 4 G residues)");
}

void SearchDb::check_scheme(const ScoringScheme& scheme) const {
  if (scheme.letters() == info_.letters) return;
  throw Error("TARGET '" + path_ + "' was built for the letters of " + info_.scheme_name + " (" +
              info_.letters + "), this run scores with " + scheme.name() + " (" +
              std::string(scheme.letters()) +
              "): build it again with 'seqfuse align-db' and this run's --alphabet/--matrix");
}

}  // namespace seqfuse::align
