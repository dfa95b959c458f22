#include "kmer/kmer_db.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "io/crc64.hpp"

namespace seqfuse::kmer {
namespace {

// Little-endian whatever the host: the format is a file format.
void put_u32(char* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void put_u64(char* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
std::uint32_t get_u32(const char* p) noexcept {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}
std::uint64_t get_u64(const char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

constexpr std::uint32_t kFlagCanonical = 1;
constexpr std::size_t kBlockRecords = std::size_t{1} << 16;
// verify() checksums and checks this many records at a time, so the bytes
// are still in cache for the second look.
constexpr std::size_t kVerifyRecords = std::size_t{1} << 14;

}  // namespace

std::uint64_t kmer_db_checksum(std::uint64_t crc, const void* data, std::size_t size) noexcept {
  return io::crc64(crc, data, size);
}

void encode_records(const RecordBlock& block, char* out) noexcept {
  const int w = block.words_per_kmer();
  for (std::size_t i = 0; i < block.size; ++i) {
    const std::uint64_t* kmer = block.kmer(i);
    for (int j = 0; j < w; ++j, out += 8) put_u64(out, kmer[j]);
    put_u32(out, block.counts[i]);
    out += 4;
  }
}

void decode_records(const char* in, std::size_t n, int words_per_kmer, std::uint64_t* words,
                    std::uint32_t* counts) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = 0; j < words_per_kmer; ++j, in += 8) *words++ = get_u64(in);
    counts[i] = get_u32(in);
    in += 4;
  }
}

KmerDbWriter::KmerDbWriter(OutputFile& out, const KmerDbInfo& info) : out_(out), info_(info) {
  char header[kKmerDbHeaderBytes] = {};
  std::memcpy(header, kKmerDbMagic, sizeof kKmerDbMagic);
  put_u32(header + 8, kKmerDbVersion);
  put_u32(header + 12, static_cast<std::uint32_t>(info.k));
  put_u32(header + 16, static_cast<std::uint32_t>(info.words_per_kmer()));
  put_u32(header + 20, info.canonical ? kFlagCanonical : 0);
  put_u32(header + 24, static_cast<std::uint32_t>(kmer_record_bytes(info.words_per_kmer())));
  put_u32(header + 28, info.lower_count);
  put_u32(header + 32, info.upper_count);
  put(header, sizeof header);
  info_.records = 0;
}

void KmerDbWriter::put(const char* data, std::size_t size) {
  checksum_ = kmer_db_checksum(checksum_, data, size);
  out_.write(data, size);
}

void KmerDbWriter::write(const RecordBlock& block) {
  buffer_.resize(block.size * kmer_record_bytes(block.words_per_kmer()));
  encode_records(block, buffer_.data());
  put(buffer_.data(), buffer_.size());
  info_.records += block.size;
}

void KmerDbWriter::write_encoded(std::string_view records, std::uint64_t records_checksum,
                                 std::uint64_t count) {
  checksum_ = io::crc64_combine(checksum_, records_checksum, records.size());
  out_.write(records);
  info_.records += count;
}

void KmerDbWriter::finish(std::uint64_t total_kmers, std::uint64_t distinct_kmers) {
  char footer[kKmerDbFooterBytes] = {};
  put_u64(footer, info_.records);
  put_u64(footer + 8, total_kmers);
  put_u64(footer + 16, distinct_kmers);
  put_u64(footer + kKmerDbChecksumOffset,
          kmer_db_checksum(checksum_, footer, kKmerDbChecksumOffset));
  std::memcpy(footer + 40, kKmerDbEndMagic, sizeof kKmerDbEndMagic);
  out_.write(footer, sizeof footer);
}

namespace {

// The database file, mapped (after the checks a path needs first).
MappedRegularFile map_database(const std::string& path) {
  if (path == "-")
    throw UsageError("a k-mer database is read from a file, not from standard input");
  register_input(path);
  return MappedRegularFile(path, "k-mer database");
}

}  // namespace

KmerDb::KmerDb(const std::string& path) : path_(path), file_(map_database(path)) {
  const std::string quoted = "'" + path + "'";
  const auto fail = [&](const std::string& what) { throw Error(quoted + " " + what); };
  const std::size_t magic_bytes = std::min(map_bytes_, sizeof kKmerDbMagic);
  if (magic_bytes < sizeof kKmerDbMagic || std::memcmp(map_, kKmerDbMagic, magic_bytes) != 0)
    fail("is not a seqfuse k-mer database");
  if (map_bytes_ < kKmerDbHeaderBytes) fail("is truncated (incomplete header)");
  const std::uint32_t version = get_u32(map_ + 8);
  if (version == 1)
    fail(
        "is a seqfuse k-mer database of version 1, which has no checksum; this seqfuse "
        "reads version " +
        std::to_string(kKmerDbVersion) + ": count the k-mers again");
  if (version != kKmerDbVersion)
    fail("is a seqfuse k-mer database of version " + std::to_string(version) +
         "; this seqfuse reads version " + std::to_string(kKmerDbVersion));
  const std::uint32_t k = get_u32(map_ + 12);
  const std::uint32_t flags = get_u32(map_ + 20);
  if (k < 1 || k > static_cast<std::uint32_t>(kMaxK) ||
      get_u32(map_ + 16) != static_cast<std::uint32_t>(words_for_k(static_cast<int>(k))) ||
      get_u32(map_ + 24) != kmer_record_bytes(words_for_k(static_cast<int>(k))) ||
      (flags & ~kFlagCanonical) != 0)
    fail("has a damaged header");
  info_.k = static_cast<int>(k);
  info_.canonical = (flags & kFlagCanonical) != 0;
  info_.lower_count = get_u32(map_ + 28);
  info_.upper_count = get_u32(map_ + 32);

  if (map_bytes_ < kKmerDbHeaderBytes + kKmerDbFooterBytes ||
      std::memcmp(map_ + map_bytes_ - sizeof kKmerDbEndMagic, kKmerDbEndMagic,
                  sizeof kKmerDbEndMagic) != 0)
    fail("is truncated (no end marker)");
  const char* footer = map_ + map_bytes_ - kKmerDbFooterBytes;
  info_.records = get_u64(footer);
  info_.total_kmers = get_u64(footer + 8);
  info_.distinct_kmers = get_u64(footer + 16);
  const std::uint64_t record_bytes = kmer_record_bytes(info_.words_per_kmer());
  const std::uint64_t body = map_bytes_ - kKmerDbHeaderBytes - kKmerDbFooterBytes;
  if (body % record_bytes != 0 || body / record_bytes != info_.records)
    fail("is truncated or damaged: " + std::to_string(body) +
         " bytes of records, the footer says " + std::to_string(info_.records) + " records of " +
         std::to_string(record_bytes));
  file_.advise(MADV_SEQUENTIAL);
  verify(quoted);
  file_.advise(MADV_RANDOM);
}

void KmerDb::verify(const std::string& quoted) const {
  const int w = info_.words_per_kmer();
  const std::size_t record_bytes = kmer_record_bytes(w);
  // Bits of word 0 that hold bases: 2k bits (k <= 32), else 2(k - 32).
  const int top_bases = w == 1 ? info_.k : info_.k - 32;
  const std::uint64_t top_mask =
      top_bases >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * top_bases)) - 1;
  const auto damaged = [&](std::uint64_t record, const char* what) {
    throw Error(quoted + " is damaged: record " + std::to_string(record + 1) + " " + what);
  };
  std::uint64_t crc = kmer_db_checksum(0, map_, kKmerDbHeaderBytes);
  std::uint64_t previous[2] = {0, 0};
  for (std::uint64_t begin = 0; begin < info_.records; begin += kVerifyRecords) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(kVerifyRecords, info_.records - begin));
    const char* records = map_ + kKmerDbHeaderBytes + begin * record_bytes;
    crc = kmer_db_checksum(crc, records, n * record_bytes);
    for (std::size_t i = 0; i < n; ++i) {
      const char* record = records + i * record_bytes;
      std::uint64_t kmer[2] = {get_u64(record), w == 2 ? get_u64(record + 8) : 0};
      if ((kmer[0] & ~top_mask) != 0) damaged(begin + i, "has bits set above its k-mer");
      if (get_u32(record + 8 * w) == 0) damaged(begin + i, "has count 0");
      if ((begin + i > 0) && !std::lexicographical_compare(previous, previous + w, kmer, kmer + w))
        damaged(begin + i, "is out of order");
      previous[0] = kmer[0];
      previous[1] = kmer[1];
    }
  }
  const char* footer = map_ + map_bytes_ - kKmerDbFooterBytes;
  crc = kmer_db_checksum(crc, footer, kKmerDbChecksumOffset);
  if (crc != get_u64(footer + kKmerDbChecksumOffset) || get_u64(footer + 32) != 0)
    throw Error(quoted + " is damaged (checksum mismatch)");
}

KmerDb::~KmerDb() = default;

void KmerDb::for_each_block(const std::function<void(const RecordBlock&)>& consume) const {
  const int w = info_.words_per_kmer();
  const std::size_t record_bytes = kmer_record_bytes(w);
  std::vector<std::uint64_t> words(kBlockRecords * static_cast<std::size_t>(w) + 2);
  std::vector<std::uint32_t> counts(kBlockRecords);
  for (std::uint64_t begin = 0; begin < info_.records; begin += kBlockRecords) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(kBlockRecords, info_.records - begin));
    decode_records(map_ + kKmerDbHeaderBytes + begin * record_bytes, n, w, words.data(),
                   counts.data());
    consume(RecordBlock{info_.k, words.data(), counts.data(), n});
  }
}

void KmerDb::read_kmer(std::uint64_t index, std::uint64_t* words) const noexcept {
  const int w = info_.words_per_kmer();
  const char* record = map_ + kKmerDbHeaderBytes + index * kmer_record_bytes(w);
  for (int j = 0; j < w; ++j) words[j] = get_u64(record + 8 * j);
}

std::uint32_t KmerDb::count_of(const std::uint64_t* words) const noexcept {
  const int w = info_.words_per_kmer();
  std::uint64_t lo = 0, hi = info_.records;  // the first record >= words lies in [lo, hi]
  std::uint64_t probe[2] = {0, 0};
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    read_kmer(mid, probe);
    if (std::lexicographical_compare(probe, probe + w, words, words + w)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == info_.records) return 0;
  read_kmer(lo, probe);
  if (!std::equal(probe, probe + w, words)) return 0;
  return get_u32(map_ + kKmerDbHeaderBytes + lo * kmer_record_bytes(w) + 8 * w);
}

}  // namespace seqfuse::kmer
