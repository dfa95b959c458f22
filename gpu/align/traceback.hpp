// Device engine for full alignments (score, end and begin cells, CIGAR) of a
// list of (query, target) pairs: one thread per pair fills a grid of 4-bit
// direction codes in device memory and walks it back, all on the device
// (trace_dp.hpp holds that code, shared with a CPU emulation). Results equal
// the scalar reference_align field by field. Plain C++ header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "gpu/align/score_db.hpp"
#include "gpu/align/trace_dp.hpp"
#include "gpu/align/trace_plan.hpp"

namespace seqfuse::gpu {

struct TracePair {
  std::uint32_t query;   // index into the tracer's queries
  std::uint32_t target;  // index into its targets
};

struct TraceOutput {
  // By input pair. Refused pairs keep a default TracedPair.
  std::vector<align::trace::TracedPair> pairs;
  // CIGAR runs (align::trace::pack_run) of every pair, in forward order:
  // pairs[k] owns runs[run_offset, run_offset + run_count).
  std::vector<std::uint32_t> runs;
  // Input positions (ascending) of pairs not traced here, which the caller
  // traces on the CPU: their direction grid alone does not fit the device
  // budget, or they have over 2^28 cells (a 16,000 x 16,000 pair), which one
  // GPU thread fills several times slower than a CPU core.
  std::vector<std::uint32_t> refused;
};

// Pairs cut into batches for one device (DeviceTracer::plan).
struct TracePlan {
  align::trace::TracePlan plan;
  std::size_t pair_count = 0;  // the pairs it was made for
};

class DeviceTracer {
 public:
  // Uploads both sequence sets once (letter codes back to back; sequence k
  // is codes[offsets[k], offsets[k+1])). Throws OutOfDeviceMemory when they
  // do not fit.
  DeviceTracer(std::span<const std::uint8_t> query_codes,
               std::span<const std::uint64_t> query_offsets,
               std::span<const std::uint8_t> target_codes,
               std::span<const std::uint64_t> target_offsets);

  [[nodiscard]] static Status can_implement(const ScoreParams& params);

  // Traces every pair. Batches are cut so each holds at most `budget_bytes`
  // of scratch device memory (0: a share of what is free now). Blocks until
  // the results are on the host: per batch one launch, then the results and
  // the used part of the run buffer come back (no per-pair round trip).
  [[nodiscard]] Status trace(const ScoreParams& params, std::span<const TracePair> pairs,
                             TraceOutput& out, std::uint64_t budget_bytes = 0);

  // trace() in two steps. plan() is host work only (it reads the device's
  // free memory and occupancy), so it can run on another thread while the
  // device is busy: batches then fit what is free when plan() runs, and
  // run() needs at least that much free. run() takes a plan of this
  // tracer's for `params`; out.pairs follows the planned pairs' order.
  // The loop's host threads sort the pairs.
  [[nodiscard]] Status plan(const ScoreParams& params, std::span<const TracePair> pairs,
                            TracePlan& plan, std::uint64_t budget_bytes = 0,
                            const HostLoop& loop = {}) const;
  [[nodiscard]] Status run(const ScoreParams& params, const TracePlan& plan, TraceOutput& out);

 private:
  std::vector<std::uint64_t> query_offsets_, target_offsets_;
  std::uint8_t query_max_code_ = 0, target_max_code_ = 0;
  DeviceBuffer query_codes_, target_codes_;
  DevicePool scratch_pool_;
  Stream stream_;
};

}  // namespace seqfuse::gpu
