// The reading side of `seqfuse kmer-count`, shared by the one-engine count
// (count_job.cpp) and the count split across GPU workers (count_workers.cpp):
// FASTQ text chunks for engines that parse on the device, and the messages
// both give about their inputs.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "core/report.hpp"
#include "io/fastq_chunks.hpp"
#include "kmer/count_job.hpp"
#include "kmer/engine.hpp"

namespace seqfuse::kmer {

// A FASTQ file's whole-record chunks, as text. The first ones may already be
// in plain memory (read while the engine started); the rest are read into
// pinned buffers.
struct FastqText {
  std::unique_ptr<io::FastqChunkReader> reader;
  std::deque<io::TextBuffer> early;  // plain memory
};

[[nodiscard]] FastqText open_fastq_text(const std::string& input, std::size_t chunk_bytes,
                                        unsigned threads);

// dst = src, on `threads` threads: one core copies a few GB/s, PCIe takes more.
void parallel_copy(char* dst, const char* src, std::size_t n, unsigned threads);

// An empty input (a scatter chunk, a sample filtered to nothing) counts as
// no k-mers, as jellyfish count takes it: a warning, not an error.
void warn_empty(const std::string& name, Reporter& report);

void show_progress(const CountStats& stats, Reporter& report);

// What a text engine found in a whole FASTQ file, into `stats`: throws
// seqfuse::Error naming the first malformed record, warns when the file had
// no records.
void take_text_totals(const TextTotals& totals, const std::string& name, CountStats& stats,
                      Reporter& report);

}  // namespace seqfuse::kmer
