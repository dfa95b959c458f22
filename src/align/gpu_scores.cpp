#include "align/gpu_scores.hpp"

#include "core/error.hpp"
#include "core/report.hpp"

#if SEQFUSE_HAVE_GPU
#include "align/gpu_params.hpp"
#endif

namespace seqfuse::align {

#if SEQFUSE_HAVE_GPU

namespace {

AlignResult to_result(const gpu::PairScore& s) {
  AlignResult r;
  r.score = s.score;
  r.query_end = s.query_end;
  r.target_end = s.target_end;
  return r;
}

void require_success(gpu::Status status) {
  if (status != gpu::Status::kSuccess)
    throw Error(std::string("GPU alignment refused its input: ") + gpu::to_string(status));
}

}  // namespace

struct GpuScorer::State {
  gpu::ScoreParams params;
  gpu::DeviceTargetSet targets;
  std::vector<gpu::PairScore> scores;
};

bool gpu_scores_compiled() noexcept {
  return true;
}

bool gpu_can_score(const ScoringScheme& scheme) {
  return gpu::DeviceTargetSet::can_implement(gpu_score_params(scheme, AlignMode::local)) ==
         gpu::Status::kSuccess;
}

GpuScorer::GpuScorer(const ScoringScheme& scheme, AlignMode mode, const EncodedSequences& targets)
    // State holds device objects that cannot move: built in place.
    : state_(new State{gpu_score_params(scheme, mode),
                       gpu::DeviceTargetSet(targets.flat_codes(), targets.offsets()),
                       {}}) {}

GpuScorer::~GpuScorer() = default;

static_assert(kEndNotComputed == gpu::kEndUnknown);

void GpuScorer::score_all(const EncodedSequences& queries, std::size_t first, std::size_t count,
                          std::vector<AlignResult>& out, bool end_cells) {
  Stopwatch clock;
  state_->params.end_cells = end_cells;
  const auto offsets = queries.offsets().subspan(first, count + 1);
  const auto codes =
      queries.flat_codes().subspan(offsets.front(), offsets.back() - offsets.front());
  std::vector<std::uint64_t> rebased(offsets.begin(), offsets.end());
  for (auto& o : rebased) o -= offsets.front();
  state_->scores.resize(count * state_->targets.size());
  require_success(state_->targets.score(state_->params, codes, rebased, state_->scores));
  const gpu::ScoreStats& stats = state_->targets.last_stats();
  trace("align search: " + std::to_string(stats.pairs) + " pairs, " +
        std::to_string(stats.narrow_pairs) + " in 16-bit lanes, " +
        std::to_string(stats.flagged_pairs) + " flagged, " + std::to_string(stats.rerun_pairs) +
        " rerun at 32 bits");
  out.resize(state_->scores.size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = to_result(state_->scores[k]);
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
GpuScorer::~GpuScorer() = default;
void GpuScorer::score_all(const EncodedSequences&, std::size_t, std::size_t,
                          std::vector<AlignResult>&, bool) {}

#endif

}  // namespace seqfuse::align
