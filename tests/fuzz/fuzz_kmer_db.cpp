// The k-mer database reader (kmer-count dump/histo/query): opening (header,
// footer, size, checksum), streaming every record, and lookups.
#include <cstdint>
#include <cstdlib>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "fuzz_support.hpp"
#include "kmer/kmer_db.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const RunScope run;
  const fuzz::MemFile file(data, size);
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
