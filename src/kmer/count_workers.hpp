// kmer-count on several GPU workers (--device gpu:0,1,... ; gpu:0,0 runs two
// on one card). The input is read once, on the calling thread, and every
// piece of it (a FASTQ text chunk in pinned memory, or a parsed batch) goes
// to every worker through a BroadcastRing; each worker has its own engine on
// its own device and host thread and keeps only the k-mers of its key range
// (key_ranges.hpp, cut at quantiles of the first piece's k-mers). The runs
// of all workers go to the one RunStore, where no key is in two workers'
// runs; a histogram-only count may end with each worker's histogram made on
// its device, which add up. The outputs are those of one engine, byte for
// byte: the merge sums equal keys whatever run they are in, and here they
// are only ever in one worker's runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/report.hpp"
#include "io/fastq_chunks.hpp"
#include "kmer/count_input.hpp"
#include "kmer/count_job.hpp"
#include "kmer/engine.hpp"
#include "kmer/run_store.hpp"

namespace seqfuse::kmer {

// Pieces the reader may be ahead of the slowest worker: each worker holds
// two text chunks (the one its device may still read, the one being added),
// and the reader fills the next ones meanwhile.
inline constexpr std::size_t kWorkerRingSlots = 4;

struct WorkerCount {
  std::vector<int> devices;  // one entry per worker, repeats allowed
  // Every worker's engine starts from these (k, canonical, -m's device
  // budget, the input's k-mer bound, tunables); see worker_engine_params.
  EngineParams engine;
  std::size_t bound_slack = 0;  // of engine.kmer_bound: one chunk or batch
  std::size_t chunk_bytes = 0;  // FASTQ text chunks
  std::size_t batch_bases = 0;  // parsed batches
  bool histogram_only = false;  // the workers end with finish_with_histogram
  // The engines, the device binding and whether the engines take FASTQ text
  // (CountOptions::gpu_workers; the GPU engine's by default).
  GpuWorkerEngines engines;
};

struct WorkersCounted {
  // With histogram_only: every worker gave its histogram, so the store is
  // empty and `frequencies` is the whole histogram. Otherwise `frequencies`
  // holds the histograms that some workers gave, and the other workers'
  // k-mers are in the store.
  bool histogram_complete = false;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> frequencies;  // ascending counts
};

// Counts options.inputs on the workers into `store` (and `frequencies`),
// adding reads and bases to `stats`. `first_text`: the first input's chunks
// read ahead while the devices started (null: none); `ring_texts`:
// kWorkerRingSlots pinned buffers made beforehand, or empty. Throws the
// error one engine would give for bad input; a failing worker fails the run
// (the others stop at their next piece), and nothing is written.
[[nodiscard]] WorkersCounted count_on_workers(
    const CountOptions& options, const WorkerCount& setup, RunStore& store,
    std::optional<FastqText>& first_text, std::vector<std::unique_ptr<io::TextBuffer>> ring_texts,
    CountStats& stats, Reporter& report);

// Worker `worker`'s engine parameters: `base` with the worker's key range;
// the device budget (-m) and the device memory share divided among the
// workers on its device; and, when the input's k-mer bound is known, room
// for its share of it with half as much again for an uneven split (more
// rounds, never a wrong count, if the split is more uneven than that).
[[nodiscard]] EngineParams worker_engine_params(const EngineParams& base,
                                                const std::vector<int>& devices, std::size_t worker,
                                                const KeyRange& keys, std::size_t bound_slack);

// (count, k-mers) lists, each ascending, added up.
[[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint64_t>> add_frequencies(
    const std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>>& lists);

}  // namespace seqfuse::kmer
