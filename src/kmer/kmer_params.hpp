// The kmer-count domain's tuning knobs, in one place: sizes chosen by
// measurement, not options for users. A run reads them once, when its
// CountOptions are made (count_job.hpp), and hands them down to the engines;
// tests may set their own.
#pragma once

#include <cstddef>

namespace seqfuse::kmer {

struct KmerTunables {
  // FASTQ text goes to the GPU in chunks of at most this many bytes: large
  // enough that a chunk's launches and its reads (each split over -t threads)
  // cost little next to its copy, small enough that pinning two of them
  // (~0.4 ms per MB, on the GPU's start-up path) stays short. On one H100,
  // counting a 1.26 GB FASTQ took 0.593 s with 32 MiB chunks and 0.641 s
  // with 16 MiB ones.
  std::size_t gpu_text_chunk_bytes = std::size_t{32} << 20;

  // Below this many k-mers per round the GPU engine would spend its time in
  // launches and copies rather than counting; a smaller device budget is an
  // error.
  std::size_t gpu_minimum_capacity = std::size_t{1} << 20;

  // The share of the device's free memory the GPU engine may take: the rest
  // is headroom for the input batch, the sort's temporary storage and the
  // driver.
  double gpu_device_share = 0.8;

  // The defaults above, with SEQFUSE_KMER_CHUNK_MIB (1 to 256; other values
  // are ignored) replacing gpu_text_chunk_bytes, so that two chunk sizes can
  // be timed side by side on one machine (scripts/device-kmer-chunks.sh).
  [[nodiscard]] static KmerTunables from_environment();
};

}  // namespace seqfuse::kmer
