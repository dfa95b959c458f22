#include "align/gpu_traceback.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "align/gpu_params.hpp"
#include "align/reference.hpp"
#include "core/gpu_status.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"
#include "gpu/align/traceback.hpp"

namespace seqfuse::align {

struct GpuTracer::State {
  const ScoringScheme* scheme;
  AlignMode mode;
  const EncodedSequences* queries;
  const EncodedSequences* targets;
  gpu::ScoreParams params;
  gpu::DeviceTracer tracer;
  gpu::TraceOutput output;
  std::vector<gpu::TracePair> prepared_pairs;  // what `prepared` was planned for
  gpu::TracePlan prepared;
};

namespace {

std::vector<gpu::TracePair> trace_pairs(std::span<const PairIndex> pairs) {
  std::vector<gpu::TracePair> list(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) list[k] = {pairs[k].query, pairs[k].target};
  return list;
}

bool same_pairs(std::span<const gpu::TracePair> a, std::span<const gpu::TracePair> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const gpu::TracePair& x, const gpu::TracePair& y) {
                      return x.query == y.query && x.target == y.target;
                    });
}

}  // namespace

void GpuTracer::prepare(std::span<const PairIndex> pairs) {
  state_->prepared_pairs = trace_pairs(pairs);
  require_gpu_success(state_->tracer.plan(state_->params, state_->prepared_pairs, state_->prepared,
                                          budget_, host_loop(threads_)),
                      "GPU traceback");
}

GpuTracer::GpuTracer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& queries,
                     const EncodedSequences& targets, std::uint64_t device_budget_bytes,
                     unsigned threads)
    // State holds device objects that cannot move: built in place.
    : state_(new State{&scheme,
                       mode,
                       &queries,
                       &targets,
                       gpu_score_params(scheme, mode),
                       gpu::DeviceTracer(queries.flat_codes(), queries.offsets(),
                                         targets.flat_codes(), targets.offsets()),
                       {},
                       {},
                       {}}),
      budget_(device_budget_bytes),
      threads_(threads) {}

GpuTracer::~GpuTracer() = default;

void GpuTracer::align_pairs(std::span<const PairIndex> pairs, std::span<AlignResult> out) {
  if (pairs.size() != out.size())
    throw std::invalid_argument("GpuTracer::align_pairs: pairs and out differ in size");
  Stopwatch clock;
  const std::vector<gpu::TracePair> list = trace_pairs(pairs);
  gpu::TraceOutput& o = state_->output;
  if (!same_pairs(list, state_->prepared_pairs))
    require_gpu_success(
        state_->tracer.plan(state_->params, list, state_->prepared, budget_, host_loop(threads_)),
        "GPU traceback");
  require_gpu_success(state_->tracer.run(state_->params, state_->prepared, o), "GPU traceback");
  state_->prepared_pairs.clear();
  state_->prepared = {};
  device_seconds_ += clock.seconds();
  seqfuse::trace("align traceback: " + std::to_string(pairs.size()) +
                 " pairs traced on the device");
  // Every pair but the refused ones decodes its runs; the refused ones (too
  // large for the device) go to the scalar reference. Both on threads (1 M
  // pairs of 1,000 bp: 0.07 s on 16).
  std::vector<std::uint8_t> refused(pairs.size(), 0);
  for (std::uint32_t k : o.refused) refused[k] = 1;
  parallel_chunks(pairs.size(), 4096, threads_, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      if (refused[k] == 0) {
        out[k] = traced_result(o.pairs[k], o.runs);
      } else {
        out[k] = reference_align(state_->mode, *state_->scheme, (*state_->queries)[pairs[k].query],
                                 (*state_->targets)[pairs[k].target]);
      }
    }
  });
  cpu_pairs_ += o.refused.size();
  seqfuse::trace("align traceback: CIGAR strings built");
}

}  // namespace seqfuse::align
