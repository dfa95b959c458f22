#include "align/gpu_scores.hpp"

#include "align/gpu_params.hpp"
#include "core/gpu_status.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"

namespace seqfuse::align {

struct GpuScorer::State {
  gpu::ScoreParams params;
  gpu::DeviceTargetSet targets;
  std::unique_ptr<gpu::DeviceTimeline> own_timeline;  // where none was given
  gpu::DeviceTimeline* timeline = nullptr;
};

GpuScorer::GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets,
                     unsigned threads)
    : GpuScorer(scheme, mode, targets, {0, static_cast<std::uint32_t>(targets.size())}, threads) {}

GpuScorer::GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets,
                     TargetRange part, unsigned threads, gpu::DeviceTimeline* timeline)
    // State holds device objects that cannot move: built in place. The set
    // reads target k of the part at flat_codes()[offsets[k], offsets[k + 1]).
    : state_(new State{
          gpu_score_params(scheme, mode),
          gpu::DeviceTargetSet(targets.flat_codes(),
                               targets.offsets().subspan(part.begin, part.size() + 1), threads),
          nullptr, timeline}) {
  if (!state_->timeline) {
    state_->own_timeline = std::make_unique<gpu::DeviceTimeline>();
    state_->timeline = state_->own_timeline.get();
  }
  state_->targets.time_kernels_on(state_->timeline);
}

GpuScorer::~GpuScorer() = default;

double GpuScorer::device_seconds() const {
  return state_->timeline->busy_seconds();
}

void GpuScorer::score_all(const EncodedSequences& queries, std::size_t first, std::size_t count,
                          std::vector<gpu::PairScore>& out, unsigned threads) {
  trace("align search: scoring " + std::to_string(count) + " queries");
  const auto offsets = queries.offsets().subspan(first, count + 1);
  const auto codes =
      queries.flat_codes().subspan(offsets.front(), offsets.back() - offsets.front());
  std::vector<std::uint64_t> rebased(offsets.begin(), offsets.end());
  for (auto& o : rebased) o -= offsets.front();
  require_gpu_success(
      state_->targets.score(state_->params, codes, rebased, out, host_loop(threads)),
      "GPU alignment");
  const gpu::ScoreStats& stats = state_->targets.last_stats();
  trace("align search: " + std::to_string(stats.pairs) + " pairs, " +
        std::to_string(stats.narrow_pairs) + " in 16-bit lanes, " +
        std::to_string(stats.flagged_pairs) + " flagged, " + std::to_string(stats.rerun_pairs) +
        " rerun at 32 bits");
}

}  // namespace seqfuse::align
