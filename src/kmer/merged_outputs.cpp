#include "kmer/merged_outputs.hpp"

#include <algorithm>
#include <string>

#include "core/default_init.hpp"
#include "kmer/kmer_text.hpp"

namespace seqfuse::kmer {

// One part's bytes for the outputs, waiting for its turn. Parts are reused
// (MergedOutputs::spare_): fresh buffers of several MB each would be faulted
// in page by page, which cost more than encoding them.
struct MergedOutputs::PreparedPart final : PartConsumer::Prepared {
  std::vector<char, DefaultInitAllocator<char>> db_records;
  std::uint64_t db_checksum = 0;  // of db_records alone
  std::string dump_text;
  std::uint64_t kept = 0;
};

MergedOutputs::MergedOutputs(unsigned threads, std::uint32_t lower_count, std::uint32_t upper_count,
                             KmerDbWriter* db, OutputFile* dump, bool histogram)
    : db_(db), dump_(dump), histogram_(histogram) {
  workers_.reserve(std::max(threads, 1u));
  for (unsigned i = 0; i < std::max(threads, 1u); ++i)
    workers_.push_back(Worker{CountFilter(lower_count, upper_count), {}});
}

std::unique_ptr<PartConsumer::Prepared> MergedOutputs::prepare(unsigned worker,
                                                               const RecordBlock& part) {
  std::unique_ptr<PreparedPart> prepared;
  {
    const std::lock_guard lock(spare_mutex_);
    if (!spare_.empty()) {
      prepared = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!prepared) prepared = std::make_unique<PreparedPart>();
  prepared->kept = 0;
  prepared->dump_text.clear();
  Worker& own = workers_.at(worker);
  if (histogram_) own.histogram.add(part);  // every k-mer: -L/-U are for the dump and DB
  if (db_ == nullptr && dump_ == nullptr) return prepared;
  const RecordBlock kept = own.filter.apply(part);
  prepared->kept = kept.size;
  if (db_ != nullptr) {
    // Encoded and checksummed a piece at a time, while the piece is in cache.
    constexpr std::size_t kPiece = 16384;  // k-mers: 196 KB of records for k <= 32
    const std::size_t record_bytes = kmer_record_bytes(kept.words_per_kmer());
    prepared->db_records.resize(kept.size * record_bytes);
    prepared->db_checksum = 0;
    for (std::size_t begin = 0; begin < kept.size; begin += kPiece) {
      const std::size_t n = std::min(kPiece, kept.size - begin);
      char* out = prepared->db_records.data() + begin * record_bytes;
      encode_records(RecordBlock{kept.k, kept.kmer(begin), kept.counts + begin, n}, out);
      prepared->db_checksum = kmer_db_checksum(prepared->db_checksum, out, n * record_bytes);
    }
  }
  if (dump_ != nullptr) append_dump_lines(kept, prepared->dump_text);
  return prepared;
}

void MergedOutputs::deliver(std::unique_ptr<Prepared> part) {
  auto& prepared = static_cast<PreparedPart&>(*part);
  kept_ += prepared.kept;
  if (db_ != nullptr)
    db_->write_encoded({prepared.db_records.data(), prepared.db_records.size()},
                       prepared.db_checksum, prepared.kept);
  if (dump_ != nullptr) dump_->write(prepared.dump_text);
  const std::lock_guard lock(spare_mutex_);
  spare_.emplace_back(static_cast<PreparedPart*>(part.release()));
}

MergedOutputs::~MergedOutputs() = default;

void MergedOutputs::add_histogram_to(CountHistogram& histogram) const {
  for (const Worker& worker : workers_) histogram.add(worker.histogram);
}

}  // namespace seqfuse::kmer
