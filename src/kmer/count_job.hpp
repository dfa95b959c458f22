// One `seqfuse kmer-count` run: inputs -> engine (CPU or GPU) -> runs kept in
// memory or spilled -> merge -> database, histogram, dump -> summary line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device_choice.hpp"
#include "core/report.hpp"
#include "kmer/engine.hpp"
#include "kmer/kmer_params.hpp"
#include "kmer/run_merge.hpp"

namespace seqfuse::kmer {

// What a GPU worker runs. Empty members: the GPU engine (which takes FASTQ
// text) and gpu::use_device. Tests put CPU engines there and a bind that
// does nothing, so that the GPU paths, with one worker or several, run in
// CPU CI through the same code.
struct GpuWorkerEngines {
  std::function<std::unique_ptr<CountingEngine>(const EngineParams&, RunSink&)> make;
  bool takes_fastq_text = true;  // what make's engines answer to takes_fastq_text()
  std::function<void(int device)> bind;
};

// -m/--max-memory below this cannot hold the reader's batches and a useful run.
inline constexpr std::size_t kMinMaxMemory = std::size_t{50} << 20;  // 0.05 GB (2^30 bytes)

struct CountOptions {
  int k = 0;
  bool canonical = true;
  std::uint32_t lower_count = 1;           // -L: dump and DB keep counts >= this
  std::uint32_t upper_count = UINT32_MAX;  // -U: dump and DB keep counts <= this
  std::size_t max_memory = 0;              // -m in bytes: host memory cap
  unsigned threads = 1;
  // Picks the device (and may throw as --device resolution does). It runs on
  // a thread of its own while the first input is read, so that a GPU's
  // start-up (the driver's first call, ~0.2 s) overlaps reading. Null: the CPU.
  std::function<DeviceChoice()> choose_device;
  // --device gpu or gpu:N: a GPU chosen in a build without a GPU k-mer engine
  // is an error; otherwise (auto) the CPU counts instead.
  bool gpu_required = false;
  std::vector<std::string> inputs;
  std::string db_path;     // -o; empty: none
  std::string histo_path;  // --histo; empty: none
  std::string dump_path;   // --dump; empty: none
  std::string spill_dir;   // empty: the folder of -o, else $TMPDIR, else /tmp
  // The process exits right after the job (core/quick_exit.hpp): a GPU
  // engine that finished the job is then left to the driver's teardown
  // instead of being freed buffer by buffer (~25 ms for a 1 GB FASTQ's
  // 24 GB of device buffers on an H100).
  bool exits_after = false;
  // Read from the environment once, when the run's options are made.
  KmerTunables tunables = KmerTunables::from_environment();
  // Tests only: stand-ins for the GPU engine (see GpuWorkerEngines).
  GpuWorkerEngines gpu_workers;
};

// How -m is shared out (bytes).
struct MemoryPlan {
  std::size_t batch_bases = 0;      // bases per input batch (three batches in flight)
  std::size_t engine_budget = 0;    // EngineParams::memory_budget
  std::size_t runs_in_memory = 0;   // runs beyond this spill to disk
  std::size_t merge_buffers = 0;    // read buffers of spilled runs, all together
  std::size_t merge_lookahead = 0;  // merged key ranges waiting for the outputs
};
[[nodiscard]] MemoryPlan plan_memory(std::size_t max_memory, bool gpu);

// An upper bound on the k-mers in `inputs`, plus `slack`, from their sizes
// (the GPU engine sizes its device buffers from it); 0 when an input's size
// says nothing: stdin, a pipe, gzip.
[[nodiscard]] std::uint64_t kmer_bound(const std::vector<std::string>& inputs, std::size_t slack);

struct CountStats {
  std::uint64_t reads = 0;
  std::uint64_t bases = 0;
  MergeTotals totals;      // k-mers counted, distinct, saturated
  std::uint64_t kept = 0;  // distinct k-mers passing -L/-U
  std::size_t runs = 0;
  std::size_t spilled_runs = 0;
  DeviceChoice device;  // where the counting ran
};

// Counts, writes the outputs and ends with the summary line on `report`.
// Throws UsageError for options that cannot run (k, filters, memory, no
// output) and seqfuse::Error for bad inputs or outputs; on any error no
// output file is left behind.
CountStats run_count_job(const CountOptions& options, Reporter& report);

}  // namespace seqfuse::kmer
