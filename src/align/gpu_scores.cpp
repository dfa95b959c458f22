#include "align/gpu_scores.hpp"

#include "core/error.hpp"
#include "core/report.hpp"

#if SEQFUSE_HAVE_GPU
#include "align/gpu_params.hpp"
#endif

namespace seqfuse::align {

#if SEQFUSE_HAVE_GPU

namespace {

void require_success(gpu::Status status) {
  if (status != gpu::Status::kSuccess)
    throw Error(std::string("GPU alignment refused its input: ") + gpu::to_string(status));
}

}  // namespace

struct GpuScorer::State {
  gpu::ScoreParams params;
  gpu::DeviceTargetSet targets;
};

bool gpu_scores_compiled() noexcept {
  return true;
}

bool gpu_can_score(const ScoringScheme& scheme) {
  return gpu::DeviceTargetSet::can_implement(gpu_score_params(scheme, AlignMode::local)) ==
         gpu::Status::kSuccess;
}

GpuScorer::GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets)
    : GpuScorer(scheme, mode, targets, {0, static_cast<std::uint32_t>(targets.size())}) {}

GpuScorer::GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets,
                     TargetRange part)
    // State holds device objects that cannot move: built in place. The set
    // reads target k of the part at flat_codes()[offsets[k], offsets[k + 1]).
    : state_(new State{
          gpu_score_params(scheme, mode),
          gpu::DeviceTargetSet(targets.flat_codes(),
                               targets.offsets().subspan(part.begin, part.size() + 1))}) {}

GpuScorer::~GpuScorer() = default;

void GpuScorer::score_all(const EncodedSequences& queries, std::size_t first, std::size_t count,
                          std::vector<gpu::PairScore>& out) {
  Stopwatch clock;
  trace("align search: scoring " + std::to_string(count) + " queries");
  const auto offsets = queries.offsets().subspan(first, count + 1);
  const auto codes =
      queries.flat_codes().subspan(offsets.front(), offsets.back() - offsets.front());
  std::vector<std::uint64_t> rebased(offsets.begin(), offsets.end());
  for (auto& o : rebased) o -= offsets.front();
  out.resize(count * state_->targets.size());
  require_success(state_->targets.score(state_->params, codes, rebased, out));
  const gpu::ScoreStats& stats = state_->targets.last_stats();
  trace("align search: " + std::to_string(stats.pairs) + " pairs, " +
        std::to_string(stats.narrow_pairs) + " in 16-bit lanes, " +
        std::to_string(stats.flagged_pairs) + " flagged, " + std::to_string(stats.rerun_pairs) +
        " rerun at 32 bits");
  device_seconds_ += clock.seconds();
}

#else  // no GPU backend in this build

struct GpuScorer::State {};

bool gpu_scores_compiled() noexcept {
  return false;
}
bool gpu_can_score(const ScoringScheme&) {
  return false;
}

GpuScorer::GpuScorer(const ScoringScheme&, AlignMode, const EncodedSequences&) {
  throw Error("this seqfuse was built without a GPU backend (CUDA or HIP)");
}
GpuScorer::GpuScorer(const ScoringScheme&, AlignMode, const EncodedSequences&, TargetRange) {
  throw Error("this seqfuse was built without a GPU backend (CUDA or HIP)");
}
GpuScorer::~GpuScorer() = default;
void GpuScorer::score_all(const EncodedSequences&, std::size_t, std::size_t,
                          std::vector<gpu::PairScore>&) {}

#endif

}  // namespace seqfuse::align
