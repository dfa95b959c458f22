// The CPU engine behind AlignEngine: CpuEngine's striped SIMD kernels on the
// job's threads, searches in slices of queries so a long run can report
// progress.
#include <optional>
#include <vector>

#include "align/cpu_all_vs_all.hpp"
#include "align/cpu_engine.hpp"
#include "align/engine.hpp"
#include "core/report.hpp"

namespace seqfuse::align {
namespace {

class CpuAlignEngine final : public AlignEngine {
 public:
  CpuAlignEngine(const ScoringScheme& scheme, const AlignJob& job)
      : engine_(scheme, job.mode, {.threads = job.threads, .traceback = job.traceback}) {
    // All against all scores every pair without traceback, then aligns the kept ones.
    if (job.layout == PairLayout::all_vs_all && job.traceback)
      scorer_.emplace(scheme, job.mode, CpuEngineOptions{.threads = job.threads});
  }

  AlignStats run(const AlignJob& job, const EncodedSequences& queries,
                 const EncodedSequences& against, const EmitHits& emit) override {
    const std::vector<Codes> q = queries.views();
    const std::vector<Codes> t = against.views();
    switch (job.layout) {
      case PairLayout::pairs:
        return pairs(q, t, emit);
      case PairLayout::search:
        return search(job, q, t, emit);
      case PairLayout::all_vs_all:
        break;
    }
    return all_vs_all(job, q, emit);
  }

 private:
  AlignStats pairs(std::span<const Codes> q, std::span<const Codes> t, const EmitHits& emit) {
    AlignStats stats;
    std::vector<AlignResult> out(q.size());
    engine_.align_pairs(q, t, out);
    seqfuse::trace("align: pairs aligned");
    for (std::size_t k = 0; k < out.size(); ++k)
      stats.cells += std::uint64_t{q[k].size()} * t[k].size();
    stats.pairs = out.size();
    emit_pairs(out, emit);
    return stats;
  }

  AlignStats search(const AlignJob& job, std::span<const Codes> q, std::span<const Codes> t,
                    const EmitHits& emit) {
    constexpr std::size_t kSlice = 64;  // queries between progress reports
    std::vector<AlignHit> kept;
    for (std::size_t first = 0; first < q.size(); first += kSlice) {
      const auto slice = q.subspan(first, std::min(kSlice, q.size() - first));
      auto hits = engine_.search(slice, t, job.top);
      kept.clear();
      for (std::size_t i = 0; i < hits.size(); ++i)
        for (SearchHit& h : hits[i])
          kept.push_back({static_cast<std::uint32_t>(first + i), h.target, std::move(h.result)});
      emit(kept);
      if (job.progress) job.progress(first + slice.size());
    }
    AlignStats stats;
    stats.pairs = std::uint64_t{q.size()} * t.size();
    stats.cells = cells_of(q, t);
    return stats;
  }

  AlignStats all_vs_all(const AlignJob& job, std::span<const Codes> q, const EmitHits& emit) {
    return cpu_all_vs_all(scorer_ ? *scorer_ : engine_, engine_, job, q, emit);
  }

  CpuEngine engine_;
  std::optional<CpuEngine> scorer_;  // without traceback, for all against all with traceback
};

}  // namespace

std::unique_ptr<AlignEngine> make_cpu_align_engine(const ScoringScheme& scheme,
                                                   const AlignJob& job) {
  return std::make_unique<CpuAlignEngine>(scheme, job);
}

}  // namespace seqfuse::align
