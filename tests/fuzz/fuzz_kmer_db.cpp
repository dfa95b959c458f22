// The k-mer database reader (kmer-count dump/histo/query): opening (header,
// footer, size, checksum), streaming every record, and lookups. Odd-sized
// inputs get their checksum made right first, so mutations reach the record
// checks (order, stray bits) and the lookups behind it instead of stopping at
// a checksum mismatch; even-sized ones test the checksum itself.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "fuzz_support.hpp"
#include "kmer/kmer_db.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const RunScope run;
  std::vector<std::uint8_t> bytes(data, data + size);
  const std::size_t summed = size - kmer::kKmerDbFooterBytes + kmer::kKmerDbChecksumOffset;
  if (size % 2 == 1 && size >= kmer::kKmerDbHeaderBytes + kmer::kKmerDbFooterBytes) {
    const std::uint64_t crc = kmer::kmer_db_checksum(0, bytes.data(), summed);
    for (int i = 0; i < 8; ++i) bytes[summed + i] = static_cast<std::uint8_t>(crc >> (8 * i));
  }
  const fuzz::MemFile file(bytes.data(), bytes.size());
  try {
    const kmer::KmerDb db(file.path());
    std::uint64_t seen = 0;
    std::uint64_t last[2] = {0, 0};
    db.for_each_block([&](const kmer::RecordBlock& block) {
      for (std::size_t i = 0; i < block.size; ++i) {
        const std::uint64_t* kmer = block.kmer(i);
        // Every stored k-mer is found again by the binary search.
        if (db.count_of(kmer) != block.counts[i]) std::abort();
        for (int j = 0; j < block.words_per_kmer(); ++j) last[j] = kmer[j];
      }
      seen += block.size;
    });
    if (seen != db.size()) std::abort();
    (void)db.count_of(last);
  } catch (const Error&) {
  }
  return 0;
}
