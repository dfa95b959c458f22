#include "align/gpu_pair_scores.hpp"

#include <string>

#include "align/gpu_params.hpp"
#include "core/error.hpp"
#include "core/gpu_status.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"
#include "gpu/align/score_pairs.hpp"

namespace seqfuse::align {

struct GpuPairScorer::State {
  gpu::ScoreParams params;
  gpu::DevicePairScorer engine;
  std::vector<gpu::PairScore> scores;
};

GpuPairScorer::GpuPairScorer(const ScoringScheme& scheme, AlignMode mode,
                             std::uint64_t device_budget_bytes, unsigned threads)
    // State holds device objects that cannot move: built in place.
    : state_(new State{gpu_score_params(scheme, mode), {}, {}}),
      budget_(device_budget_bytes),
      threads_(threads) {}

GpuPairScorer::~GpuPairScorer() = default;

void GpuPairScorer::score(const EncodedSequences& queries, const EncodedSequences& targets,
                          std::vector<AlignResult>& out) {
  if (queries.size() != targets.size())
    throw Error("internal: pairs need as many targets as queries");
  Stopwatch clock;
  state_->scores.assign(queries.size(), gpu::PairScore{});
  const gpu::Status status =
      state_->engine.score(state_->params, queries.flat_codes(), queries.offsets(),
                           targets.flat_codes(), targets.offsets(), state_->scores, budget_,
                           /*force_wide_edges=*/false, host_loop(threads_));
  require_gpu_success(status, "GPU pair alignment");
  out.resize(state_->scores.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    AlignResult r;
    r.score = state_->scores[k].score;
    r.query_end = state_->scores[k].query_end;
    r.target_end = state_->scores[k].target_end;
    out[k] = r;
  }
  kernel_seconds_ += state_->engine.kernel_seconds();
  device_seconds_ += clock.seconds();
}

}  // namespace seqfuse::align
