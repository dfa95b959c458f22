// What kmer-count makes of the merged k-mers: the database (-o), the dump
// (--dump) and the histogram (--histo). The work per k-mer (the histogram,
// -L/-U, encoding and checksumming database records, formatting dump lines)
// runs on the merge's threads (PartConsumer::prepare); the bytes are written
// in key order on the merging thread, so the files are those of one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/output_file.hpp"
#include "kmer/count_filter.hpp"
#include "kmer/histogram.hpp"
#include "kmer/kmer_db.hpp"
#include "kmer/run_merge.hpp"

namespace seqfuse::kmer {

class MergedOutputs final : public PartConsumer {
 public:
  // `threads`: the merge's (MergeOptions::threads). Null outputs are not made.
  MergedOutputs(unsigned threads, std::uint32_t lower_count, std::uint32_t upper_count,
                KmerDbWriter* db, OutputFile* dump, bool histogram);
  ~MergedOutputs() override;

  [[nodiscard]] std::unique_ptr<Prepared> prepare(unsigned worker,
                                                  const RecordBlock& part) override;
  void deliver(std::unique_ptr<Prepared> part) override;

  // K-mers -L/-U kept for the database and the dump (0 when neither is made).
  [[nodiscard]] std::uint64_t kept() const noexcept { return kept_; }
  // Adds every k-mer delivered (-L/-U filter only the dump and the database).
  void add_histogram_to(CountHistogram& histogram) const;

 private:
  struct Worker {
    CountFilter filter;
    CountHistogram histogram;
  };
  struct PreparedPart;
  std::vector<Worker> workers_;  // by worker id: each prepare() uses its own
  std::mutex spare_mutex_;
  std::vector<std::unique_ptr<PreparedPart>> spare_;  // delivered parts, for reuse
  KmerDbWriter* db_;
  OutputFile* dump_;
  bool histogram_;
  std::uint64_t kept_ = 0;
};

}  // namespace seqfuse::kmer
