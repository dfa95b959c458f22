#include "align/align_job.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "core/error.hpp"

namespace seqfuse::align {

std::uint64_t cells_of(std::span<const Codes> queries, std::span<const Codes> targets) {
  std::uint64_t q = 0, t = 0;
  for (const Codes& c : queries) q += c.size();
  for (const Codes& c : targets) t += c.size();
  return q * t;
}

void emit_pairs(std::vector<AlignResult>& results, const EmitHits& emit) {
  std::vector<AlignHit> hits;
  hits.reserve(std::min(results.size(), kPairsPerBatch));
  for (std::size_t first = 0; first < results.size(); first += kPairsPerBatch) {
    const std::size_t last = std::min(results.size(), first + kPairsPerBatch);
    hits.clear();
    for (std::size_t k = first; k < last; ++k)
      hits.push_back(
          {static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k), std::move(results[k])});
    emit(hits);
  }
}

AlignStats run_alignment_batched(const AlignJob& job, const ScoringScheme& scheme,
                                 const EncodedSequences& queries, const EncodedSequences& targets,
                                 const EmitHits& emit) {
  const EncodedSequences& against = job.layout == PairLayout::all_vs_all ? queries : targets;
  if (job.layout == PairLayout::pairs && queries.size() != against.size())
    throw Error("internal: pairs need as many targets as queries");
  // The one place an engine is chosen.
  const std::unique_ptr<AlignEngine> engine =
      job.gpu ? make_gpu_align_engine(scheme) : make_cpu_align_engine(scheme, job);
  return engine->run(job, queries, against, emit);
}

AlignStats run_alignment(const AlignJob& job, const ScoringScheme& scheme,
                         const EncodedSequences& queries, const EncodedSequences& targets,
                         const std::function<void(const AlignHit&)>& emit) {
  return run_alignment_batched(job, scheme, queries, targets, [&](std::span<const AlignHit> hits) {
    for (const AlignHit& hit : hits) emit(hit);
  });
}

}  // namespace seqfuse::align
