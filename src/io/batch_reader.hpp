// BatchReader: streams a FASTA/FASTQ file (plain, gzip, BGZF or "-" for stdin)
// as SequenceBatches, parsed by a background thread while the caller works on
// the previous batch.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <string>
#include <thread>

#include "io/batch.hpp"
#include "io/record_parser.hpp"

namespace seqfuse::io {

class BatchReader {
 public:
  // Opens the input (throws seqfuse::Error "cannot open '<path>': <reason>") and
  // starts the reader thread. Batch arrays are allocated from `mr`, which must
  // be thread-safe and outlive the reader.
  BatchReader(std::string path, BatchLimits limits = {},
              std::pmr::memory_resource* mr = std::pmr::new_delete_resource());
  // Stops and joins the reader thread, also when the caller stopped early: the
  // thread checks between reads of the input, so this takes at most one read
  // (4 MiB) of a file. A read blocked on an idle pipe is waited for.
  ~BatchReader();
  BatchReader(const BatchReader&) = delete;
  BatchReader& operator=(const BatchReader&) = delete;

  // The next batch, or nullptr at the end of the input (a file without records
  // gives nullptr at once). The batch belongs to the caller, who may modify it,
  // until the next call of next(), which recycles it. Errors of the reader
  // thread (parse, decompression, allocation) are rethrown here, after the
  // batches completed before the error; the records of the failing batch are
  // not delivered. Call from one thread at a time.
  [[nodiscard]] SequenceBatch* next();

  [[nodiscard]] const std::string& display_name() const noexcept { return parser_.display_name(); }
  // Uncompressed bytes the reader thread has taken from the input so far; it
  // runs ahead of the batches delivered. Once next() returned nullptr: the
  // whole uncompressed input size.
  [[nodiscard]] std::uint64_t bytes_read() const noexcept { return parser_.bytes_read(); }

  // One batch being filled, one ready, one with the caller: the reader stays a
  // batch ahead, and memory stays bounded by three batches (with the default
  // limits at most 3 x 64 MiB of bases, as much again of qualities, plus names).
  static constexpr std::size_t kBatchesInFlight = 3;

 private:
  void produce() noexcept;  // body of the reader thread

  RecordParser parser_;  // after construction, used by the reader thread only
  BatchLimits limits_;
  std::array<std::unique_ptr<SequenceBatch>, kBatchesInFlight> batches_;

  std::mutex mutex_;
  std::condition_variable batch_filled_;  // the caller waits on it
  std::condition_variable batch_freed_;   // the reader thread waits on it
  std::deque<SequenceBatch*> free_;       // guarded by mutex_
  std::deque<SequenceBatch*> filled_;     // guarded by mutex_, in file order
  bool producer_done_ = false;            // guarded by mutex_
  std::exception_ptr error_;              // guarded by mutex_
  std::atomic<bool> stop_{false};         // also polled by the parser between reads
  SequenceBatch* current_ = nullptr;      // the batch the caller holds

  std::thread worker_;  // last: starts once every member above exists
};

// Reads a whole file into one batch (query sets, references: small inputs).
// An input without records gives an empty batch. A plain FASTA file is parsed
// on several threads (parallel_fasta.hpp), everything else by RecordParser;
// records and error messages are the same either way.
// `threads` bounds the threads it starts (0: the machine's cores).
[[nodiscard]] SequenceBatch read_all(
    const std::string& path, std::pmr::memory_resource* mr = std::pmr::new_delete_resource(),
    unsigned threads = 0);

}  // namespace seqfuse::io
