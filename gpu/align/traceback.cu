// GPU traceback: one thread per pair runs trace_dp.hpp's fill (direction
// nibbles into device memory), a counting walk, reserves room for its CIGAR
// runs with one atomic add, and walks again writing them. The runs of a
// batch end up packed at the front of one buffer, so only the used part is
// copied back. Pairs are planned into batches by trace_plan.hpp.
//
// One thread per pair suits many short pairs (reads, hits of a search); a
// few very long pairs leave most of the device idle (a warp per pair along
// anti-diagonals would be the next step for those).
#include <algorithm>
#include <string>

#include "gpu/vendor.cuh"
#include "gpu/trace.hpp"
#include "gpu/align/device_max_plus.cuh"
#include "gpu/align/score_pairs.hpp"
#include "gpu/align/trace_plan.hpp"
#include "gpu/align/traceback.hpp"

namespace seqfuse::gpu {
namespace {

using align::trace::TraceBuffers;
using align::trace::TracedPair;
using align::trace::TraceJob;

constexpr int kThreads = 128;
// Blocks per multiprocessor the register budget must allow: 5 (96
// registers) with 16-row chunks. The fill runs ~28 instructions per cell
// and a full wave of batches keeps the issue slots ~60 % busy (ncu on an
// H100; bench/results/align-gpu-notes.md).
#ifndef SEQFUSE_TRACE_MIN_BLOCKS
#define SEQFUSE_TRACE_MIN_BLOCKS 5
#endif

template <bool kLocal>
__global__ void __launch_bounds__(kThreads, SEQFUSE_TRACE_MIN_BLOCKS)
    traceback_kernel(const TraceJob* __restrict__ jobs, std::uint32_t count, TraceBuffers buffers,
                     unsigned long long* __restrict__ run_fill, std::uint32_t* __restrict__ runs,
                     TracedPair* __restrict__ out) {
  // The pairs kernel's table (with its sentinel row), in shared memory.
  __shared__ int table[align::pairs::kTableSize];
  for (int k = threadIdx.x; k < align::pairs::kTableSize; k += blockDim.x)
    table[k] = buffers.table[k];
  __syncthreads();

  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  buffers.table = table;
  const TraceJob job = jobs[k];
  TracedPair p = align::trace::trace_job_fill<kLocal, DeviceMaxPlus>(job, buffers);
  if (p.run_count > 0) {
    p.run_offset = atomicAdd(run_fill, static_cast<unsigned long long>(p.run_count));
    align::trace::trace_job_write(kLocal, job, buffers, p, runs + p.run_offset);
  }
  out[job.out] = p;
}

void launch_traceback(bool local, const TraceJob* jobs, std::uint32_t count,
                      const TraceBuffers& buffers, unsigned long long* run_fill,
                      std::uint32_t* runs, TracedPair* out, gpuStream_t stream) {
  if (count == 0) return;
  const unsigned blocks = (count + kThreads - 1) / kThreads;
  if (local)
    traceback_kernel<true>
        <<<blocks, kThreads, 0, stream>>>(jobs, count, buffers, run_fill, runs, out);
  else
    traceback_kernel<false>
        <<<blocks, kThreads, 0, stream>>>(jobs, count, buffers, run_fill, runs, out);
  GPU_CHECK_LAUNCH();
}

DeviceBuffer upload_bytes(const void* data, std::size_t bytes, Stream& stream) {
  DeviceBuffer buffer(std::max<std::size_t>(bytes, 1));
  if (bytes > 0) copy_to_device(buffer.data(), data, bytes, stream);
  return buffer;
}

std::uint8_t max_code(std::span<const std::uint8_t> codes) {
  std::uint8_t m = 0;
  for (std::uint8_t c : codes) m = std::max(m, c);
  return m;
}

// Scratch per batch when the caller names no budget: three quarters of what
// is free once the sequences are uploaded. A batch's pairs are its threads,
// and each holds its whole direction grid (1,000 x 1,000 bp: 0.5 MB), so the
// budget bounds the occupancy: under a 16 GiB cap an H100 ran 2 of its 5
// possible blocks per multiprocessor. plan() then cuts the
// batches to whole waves.
std::uint64_t default_budget() {
  return std::max<std::uint64_t>(free_device_memory() / 4 * 3, std::uint64_t{64} << 20);
}

// Pairs of more cells go to the CPU: at some 10^8 cells per second, one
// GPU thread would take seconds on them (a 16,000 x 16,000 pair: ~3 s).
constexpr std::uint64_t kMaxDeviceCells = std::uint64_t{1} << 28;

}  // namespace

DeviceTracer::DeviceTracer(std::span<const std::uint8_t> query_codes,
                           std::span<const std::uint64_t> query_offsets,
                           std::span<const std::uint8_t> target_codes,
                           std::span<const std::uint64_t> target_offsets)
    : query_offsets_(query_offsets.begin(), query_offsets.end()),
      target_offsets_(target_offsets.begin(), target_offsets.end()),
      query_max_code_(max_code(query_codes)),
      target_max_code_(max_code(target_codes)) {
  query_codes_ = upload_bytes(query_codes.data(), query_codes.size(), stream_);
  target_codes_ = upload_bytes(target_codes.data(), target_codes.size(), stream_);
  stream_.synchronize();
  gpu::trace("align traceback: sequences uploaded");
}

Status DeviceTracer::can_implement(const ScoreParams& params) {
  return DeviceTargetSet::can_implement(params);
}

Status DeviceTracer::trace(const ScoreParams& params, std::span<const TracePair> pairs,
                           TraceOutput& out, std::uint64_t budget_bytes) {
  TracePlan plan;
  if (const Status s = this->plan(params, pairs, plan, budget_bytes); s != Status::kSuccess)
    return s;
  return run(params, plan, out);
}

Status DeviceTracer::plan(const ScoreParams& params, std::span<const TracePair> pairs,
                          TracePlan& plan, std::uint64_t budget_bytes,
                          const HostLoop& loop) const {
  if (const Status s = can_implement(params); s != Status::kSuccess) return s;
  if (query_max_code_ >= params.alphabet_size || target_max_code_ >= params.alphabet_size)
    return Status::kInvalidArgument;
  const std::size_t queries = query_offsets_.empty() ? 0 : query_offsets_.size() - 1;
  const std::size_t targets = target_offsets_.empty() ? 0 : target_offsets_.size() - 1;
  std::vector<align::trace::PlanPair> plan_pairs(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const TracePair& p = pairs[k];
    if (p.query >= queries || p.target >= targets) return Status::kInvalidArgument;
    plan_pairs[k].query = query_offsets_[p.query];
    plan_pairs[k].target = target_offsets_[p.target];
    plan_pairs[k].m =
        static_cast<std::int32_t>(query_offsets_[p.query + 1] - query_offsets_[p.query]);
    plan_pairs[k].n =
        static_cast<std::int32_t>(target_offsets_[p.target + 1] - target_offsets_[p.target]);
  }
  const std::size_t resident_threads =
      static_cast<std::size_t>(resident_blocks(
          params.local ? traceback_kernel<true> : traceback_kernel<false>, kThreads)) *
      kThreads;
  plan.plan =
      align::trace::plan_traceback(plan_pairs, budget_bytes ? budget_bytes : default_budget(),
                                   kMaxDeviceCells, resident_threads, loop);
  plan.pair_count = pairs.size();
  gpu::trace("align traceback: " + std::to_string(plan.plan.batches.size()) +
                 " batches planned");
  return Status::kSuccess;
}

Status DeviceTracer::run(const ScoreParams& params, const TracePlan& traced_plan,
                         TraceOutput& out) {
  if (const Status s = can_implement(params); s != Status::kSuccess) return s;
  const align::trace::TracePlan& plan = traced_plan.plan;
  out.pairs.assign(traced_plan.pair_count, TracedPair{});
  out.runs.clear();
  out.refused = plan.refused;
  if (plan.batches.empty()) return Status::kSuccess;

  const std::vector<int> table = pair_table(params.matrix, params.alphabet_size);
  const DeviceBuffer table_device = upload_bytes(table.data(), table.size() * sizeof(int), stream_);
  const align::GapPenalties gaps{params.gap_open, params.gap_extend};
  // Every batch's buffers at once, sized for the largest: the batches differ
  // by a few pairs, and a buffer a little larger than the cached one made
  // the pool free and reallocate the whole budget (~0.2 s on an H100, every
  // other batch).
  std::uint64_t most_pairs = 0, most_words = 1, most_edges = 1, most_runs = 1;
  for (const align::trace::TraceBatch& batch : plan.batches) {
    most_pairs = std::max<std::uint64_t>(most_pairs, batch.jobs.size());
    most_words = std::max(most_words, batch.words);
    most_edges = std::max(most_edges, batch.edges);
    most_runs = std::max(most_runs, batch.runs);
  }
  DeviceBuffer jobs = scratch_pool_.acquire(most_pairs * sizeof(TraceJob));
  DeviceBuffer words = scratch_pool_.acquire(most_words * sizeof(std::uint32_t));
  DeviceBuffer edges = scratch_pool_.acquire(most_edges * sizeof(align::trace::EdgeCell));
  DeviceBuffer runs = scratch_pool_.acquire(most_runs * sizeof(std::uint32_t));
  DeviceBuffer traced = scratch_pool_.acquire(most_pairs * sizeof(TracedPair));
  DeviceBuffer fill = scratch_pool_.acquire(sizeof(unsigned long long));
  const TraceBuffers buffers{query_codes_.as<std::uint8_t>(), target_codes_.as<std::uint8_t>(),
                             table_device.as<int>(),          gaps,
                             words.as<std::uint32_t>(),       edges.as<align::trace::EdgeCell>()};
  std::vector<TracedPair> results;
  for (const align::trace::TraceBatch& batch : plan.batches) {
    const std::size_t count = batch.jobs.size();
    copy_to_device(jobs.data(), batch.jobs.data(), count * sizeof(TraceJob), stream_);
    fill_device(fill.data(), 0, sizeof(unsigned long long), stream_);
    launch_traceback(!!params.local, jobs.as<TraceJob>(), static_cast<std::uint32_t>(count),
                     buffers, fill.as<unsigned long long>(), runs.as<std::uint32_t>(),
                     traced.as<TracedPair>(), static_cast<gpuStream_t>(stream_.native()));
    results.resize(count);
    unsigned long long used = 0;
    copy_to_host(results.data(), traced.data(), count * sizeof(TracedPair), stream_);
    copy_to_host(&used, fill.data(), sizeof used, stream_);
    stream_.synchronize();
    const std::size_t base = out.runs.size();
    out.runs.resize(base + used);
    if (used > 0) {
      copy_to_host(out.runs.data() + base, runs.data(), used * sizeof(std::uint32_t), stream_);
      stream_.synchronize();
    }
    for (std::size_t k = 0; k < count; ++k) {
      TracedPair p = results[k];
      p.run_offset += base;
      out.pairs[batch.pairs[k]] = p;
    }
    gpu::trace("align traceback: batch of " + std::to_string(count) + " pairs done");
  }
  for (DeviceBuffer* b : {&jobs, &words, &edges, &runs, &traced, &fill})
    scratch_pool_.release(std::move(*b));
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu
