// One whole `seqfuse fastq-trim` run: every output opened first (an
// unwritable path fails before any work), fastp's evaluation pass (adapter
// detection, two-colour check), the reads trimmed in chunks on -w threads
// and written in input order, the reports written, and every file committed
// together at the end, so a failed run leaves none.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/device_workers.hpp"
#include "core/report.hpp"
#include "preprocess/engine.hpp"
#include "preprocess/trim_options.hpp"

namespace seqfuse::preprocess {

struct TrimSummary {
  std::uint64_t reads_in = 0, bases_in = 0;    // reads, both mates of a pair counted
  std::uint64_t reads_out = 0, bases_out = 0;  // passed: written to -o/-O/--stdout
  std::string adapter1, adapter2;              // searched for (given or detected); empty: none
  bool poly_g = false;                         // poly-G trimming ran (forced or automatic)
  std::string engine;                          // "cpu"
};

// Throws UsageError for options that cannot run and seqfuse::Error for bad
// input or unwritable outputs; on any error no output file is left behind.
TrimSummary run_fastq_trim(const TrimOptions& options, Reporter& report);

// Where a run's GPU engines come from: the GPU's (the run above), or, in
// the CPU tests, CPU engines behind fake devices, so that the path of
// several GPU workers (device_engines.hpp) runs in CI as it runs on GPUs.
struct GpuEngineSource {
  bool compiled = false;  // false: as a build without a GPU backend
  std::function<std::unique_ptr<TrimEngine>(const TrimPlan& plan, int device)> make;
  BindDevice bind;  // makes a device current on the calling thread
};
TrimSummary run_fastq_trim(const TrimOptions& options, Reporter& report,
                           const GpuEngineSource& gpu);

}  // namespace seqfuse::preprocess
