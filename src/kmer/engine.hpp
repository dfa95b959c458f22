// The boundary between k-mer counting engines (CPU threads, GPU kernels) and
// what is done with their counts (merge, database, histogram, dump).
//
// An engine takes batches of records and hands back sorted runs: unique
// k-mers in ascending order with their counts in that part of the input. It
// gives a run to its sink whenever its memory budget is full and at finish();
// the sink keeps runs in memory or spills them to disk, and the final merge
// sums counts of equal k-mers across runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/default_init.hpp"
#include "gpu/primitives/kmer_code.hpp"
#include "io/batch.hpp"
#include "kmer/key_ranges.hpp"
#include "kmer/kmer_params.hpp"
#include "kmer/run_gate.hpp"

namespace seqfuse::kmer {

// A run's columns resize without writing (core/default_init.hpp): a run of
// gigabytes is faulted in by the threads that fill it, not zeroed first by
// one (the GPU engine's runs reached the host at ~1.3 GB/s that way, run 33).
template <class T>
using RunColumn = std::vector<T, DefaultInitAllocator<T>>;

// Ascending unique k-mers, words_for_k(k) words each (w[0] first), and their
// counts. Counts saturate at UINT32_MAX (never wrap).
struct SortedRun {
  int k = 0;
  RunColumn<std::uint64_t> words;
  RunColumn<std::uint32_t> counts;

  [[nodiscard]] std::size_t size() const noexcept { return counts.size(); }
  [[nodiscard]] int words_per_kmer() const noexcept { return words_for_k(k); }
};

class RunSink {
 public:
  virtual ~RunSink() = default;
  virtual void take(SortedRun run) = 0;
};

struct EngineParams {
  int k = 0;
  bool canonical = true;
  unsigned threads = 1;
  // Bytes the engine may hold before it flushes a run to the sink (host
  // memory for the CPU engine, device memory for the GPU engine).
  std::size_t memory_budget = std::size_t{1} << 30;
  int device_index = 0;  // GPU engine only
  // At least as many k-mers as all input will give, one batch or text chunk
  // of slack included; 0 when unknown (stdin, compressed input). The GPU
  // engine sizes its device buffers from it instead of from the budget alone.
  std::uint64_t kmer_bound = 0;
  KmerTunables tunables;  // the GPU engine's sizing
  // Only k-mers in this range are counted (several workers split a count by
  // key range, key_ranges.hpp); the default takes all.
  KeyRange keys;
  // GPU engine: passed while a round's run is brought to the host and
  // handed to the sink, when several workers share one host memory cap (-m)
  // (run_gate.hpp). Null: none.
  RunGate* run_gate = nullptr;
};

// What an engine that parses FASTQ text itself found in it.
struct TextTotals {
  std::uint64_t records = 0;
  std::uint64_t bases = 0;
  bool malformed = false;
  std::uint64_t malformed_record = 0;  // 0-based, the first one that is not FASTQ
  std::string problem;                 // what is wrong with it
};

class CountingEngine {
 public:
  virtual ~CountingEngine() = default;
  // Counts every k-mer of every record; may call the sink when full.
  virtual void add(const io::SequenceBatch& batch) = 0;
  // Flushes what is left into the sink; the engine is done afterwards.
  virtual void finish() = 0;
  // For runs that want only the histogram: an engine that counted all its
  // input in one round may end by filling `frequencies` with (count,
  // distinct k-mers with it) pairs, ascending, instead of handing the run to
  // the sink, and return true. Otherwise it does finish() and returns false.
  virtual bool finish_with_histogram(
      std::vector<std::pair<std::uint32_t, std::uint64_t>>& frequencies) {
    frequencies.clear();
    finish();
    return false;
  }

  // Engines that parse FASTQ text themselves (the GPU engine, on the device)
  // take it unparsed, as io::FastqChunkReader cuts it: whole 4-line records.
  [[nodiscard]] virtual bool takes_fastq_text() const noexcept { return false; }
  // Counts the k-mers of text[0, n). The engine may read `text` until the
  // next call of add_fastq_text(), text_totals() or finish().
  virtual void add_fastq_text(const char* text, std::size_t n);
  // Records and bases of the text added since the last call (waits for the
  // engine), and the first malformed record among them.
  [[nodiscard]] virtual TextTotals text_totals();
};

inline void CountingEngine::add_fastq_text(const char*, std::size_t) {
  throw std::logic_error("this k-mer engine takes parsed batches only");
}
inline TextTotals CountingEngine::text_totals() {
  return {};
}

}  // namespace seqfuse::kmer
