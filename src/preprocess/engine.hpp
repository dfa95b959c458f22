// The boundary between a fastq-trim run and the engines that trim reads.
// The run reads chunks of records (fastq_records.hpp), hands each to an
// engine on a worker thread and writes what comes back in input order
// (trim_run.cpp). An engine applies fastp 0.23.2's per-read pipeline
// (docs/fastq-trim.md) with the shared arithmetic of gpu/preprocess/ and
// formats the surviving reads. Two engines: the CPU engine (cpu_engine.cpp)
// and the GPU engine (gpu_engine.cpp over gpu/preprocess/trim_chunk.hpp),
// which takes larger chunks and keeps its statistics on the device until
// finish(); both run the same per-read pipeline (read_pipeline.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "preprocess/fastq_records.hpp"
#include "preprocess/filter_counts.hpp"
#include "preprocess/report/duplication.hpp"
#include "preprocess/report/read_stats.hpp"
#include "preprocess/trim_options.hpp"

namespace seqfuse::preprocess {

// Everything fixed for a run once the evaluation pass is done.
struct TrimPlan {
  TrimSettings settings;
  std::string adapter1, adapter2;           // empty: no sequence to search (fastp's hasSeqR1/R2)
  std::vector<std::string> fasta_adapters;  // --adapter_fasta, in fastp's order
  bool interleaved_output = false;          // paired --stdout: read 1, read 2 in one stream
  bool write_failed = false;                // --failed_out
  bool write_unpaired1 = false;             // --unpaired1
  bool write_unpaired2 = false;             // --unpaired2 naming a file of its own
  bool write_overlapped = false;            // --overlapped_out
  bool dedup = false;                       // -D: records marked duplicate are not written
  // --filter_by_index1/2: barcodes whose reads (pairs) are dropped uncounted.
  std::vector<std::string> index_blacklist1, index_blacklist2;
  int index_threshold = 0;
};

// The bytes one chunk adds to each output, uncompressed.
struct ChunkOutput {
  std::string out1, out2, unpaired1, unpaired2, failed, overlapped;
  void clear() {
    overlapped.clear();
    out1.clear();
    out2.clear();
    unpaired1.clear();
    unpaired2.clear();
    failed.clear();
  }
};

// What one worker thread counts; merged at the end.
struct TrimTally {
  explicit TrimTally(int read_length1 = 0, int read_length2 = 0)
      : before1(read_length1, false),
        after1(read_length1, false),
        before2(read_length2, true),
        after2(read_length2, true) {}
  FilterCounts counts;
  ReadStats before1, after1, before2, after2;
  std::uint64_t reads_in = 0, bases_in = 0, reads_out = 0, bases_out = 0;

  void merge(const TrimTally& other) {
    counts.merge(other.counts);
    merge_stats(other);
  }
  // All but the adapter sequences (FilterCounts::merge_numbers).
  void merge_numbers(const TrimTally& other) {
    counts.merge_numbers(other.counts);
    merge_stats(other);
  }

 private:
  void merge_stats(const TrimTally& other) {
    before1.merge(other.before1);
    after1.merge(other.after1);
    before2.merge(other.before2);
    after2.merge(other.after2);
    reads_in += other.reads_in;
    bases_in += other.bases_in;
    reads_out += other.reads_out;
    bases_out += other.bases_out;
  }
};

// What each read (pair: record r of `reads` with record r of `mates`) of a
// chunk hashes to in the duplication estimate, into `sums` (resized).
inline void duplication_sums(const Duplication& estimate, const ReadChunk& reads,
                             const ReadChunk* mates, std::vector<std::uint64_t>& sums) {
  sums.resize(reads.size());
  for (std::size_t r = 0; r < sums.size(); ++r) {
    const std::string_view seq = reads.seq(reads.records[r]);
    sums[r] = mates ? estimate.pair_sum(seq, mates->seq(mates->records[r]))
                    : estimate.read_sum(seq);
  }
}

// Records (pairs) per chunk for the CPU engine: fastp's pack size. The
// output does not depend on it.
constexpr std::size_t kCpuChunkRecords = 1000;

class TrimEngine {
 public:
  virtual ~TrimEngine() = default;
  // "cpu": for the summary line.
  [[nodiscard]] virtual std::string name() const = 0;
  // Trims and filters one chunk (read 2 in `mates`, record i with record i,
  // or null for single-end), appending the formatted reads to `out` and the
  // counts to `tally`. May edit the chunks' bases (base correction).
  // Called from several worker threads at once, one chunk each.
  virtual void trim(ReadChunk& reads, ReadChunk* mates, ChunkOutput& out, TrimTally& tally) = 0;
  // After the last chunk: adds what the engine kept to itself (the GPU
  // engine's device-side counts) to `tally`, and to an estimate it took.
  virtual void finish(TrimTally& tally) { (void)tally; }
  // Before the first trim(): the engine may take over the duplication
  // estimate (the GPU engine, on its device): it then hashes every read it
  // is given and adds its counts to `estimate` in finish(). False (the
  // default): the caller goes on feeding `estimate` itself.
  virtual bool take_duplication(Duplication& estimate) {
    (void)estimate;
    return false;
  }
};

// Records come marked `duplicate` by the reading side (trim_run.cpp), which
// feeds fastp's duplication estimate in input order.
[[nodiscard]] std::unique_ptr<TrimEngine> make_cpu_trim_engine(const TrimPlan& plan);

}  // namespace seqfuse::preprocess
