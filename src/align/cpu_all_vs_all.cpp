#include "align/cpu_all_vs_all.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace seqfuse::align {
namespace {

// One candidate hit of a record: the other record and the pair's score.
struct Candidate {
  int score = 0;
  std::uint32_t target = 0;
  std::uint32_t scored = kNone;  // index in the record's scoring pass; kNone: an earlier target
  static constexpr std::uint32_t kNone = static_cast<std::uint32_t>(-1);
};

bool better(const Candidate& a, const Candidate& b) noexcept {
  return a.score != b.score ? a.score > b.score : a.target < b.target;
}

// The best `top` candidates offered so far (all when top is 0): kept loosely
// (up to twice `top`) and trimmed now and then, sorted at the end.
class Candidates {
 public:
  void offer(Candidate c, std::size_t top) {
    kept_.push_back(c);
    if (top != 0 && kept_.size() >= 2 * top + 16) trim(top);
  }
  void trim(std::size_t top) {
    if (top != 0 && kept_.size() > top) {
      std::nth_element(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(top), kept_.end(),
                       better);
      kept_.resize(top);
    }
  }
  [[nodiscard]] std::vector<Candidate> take(std::size_t top) {
    trim(top);
    std::sort(kept_.begin(), kept_.end(), better);
    std::vector<Candidate> out = std::move(kept_);
    kept_ = {};
    return out;
  }

 private:
  std::vector<Candidate> kept_;
};

// A kept hit of a record: its result when the scoring pass gave it (the
// record was the query: a later target), else aligned afterwards.
struct Kept {
  std::uint32_t target = 0;
  std::optional<AlignResult> result;
};

constexpr std::size_t kSlice = 64;  // records between emits and progress reports

// Asymmetric matrices: the pair (i, j) may score differently from (j, i), so
// each record is searched against the whole set and its own hit left out.
AlignStats every_ordered_pair(const CpuEngine& aligner, const AlignJob& job,
                              std::span<const Codes> q, const EmitHits& emit) {
  AlignStats stats;
  std::vector<AlignHit> hits;
  for (std::size_t first = 0; first < q.size(); first += kSlice) {
    const auto slice = q.subspan(first, std::min(kSlice, q.size() - first));
    // One more than kept: the record itself may be among them.
    auto rows = aligner.search(slice, q, job.top == 0 ? 0 : job.top + 1);
    hits.clear();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto self = static_cast<std::uint32_t>(first + i);
      std::size_t taken = 0;
      for (SearchHit& h : rows[i]) {
        if (h.target == self || (job.top != 0 && taken == job.top)) continue;
        hits.push_back({self, h.target, std::move(h.result)});
        ++taken;
      }
    }
    emit(hits);
    stats.pairs += std::uint64_t{slice.size()} * q.size();
    stats.cells += cells_of(slice, q);
    if (job.progress) job.progress(first + slice.size());
  }
  return stats;
}

}  // namespace

AlignStats cpu_all_vs_all(const CpuEngine& scorer, const CpuEngine& aligner, const AlignJob& job,
                          std::span<const Codes> q, const EmitHits& emit) {
  if (!scorer.symmetric()) return every_ordered_pair(aligner, job, q, emit);
  const std::size_t n = q.size(), top = job.top;
  // Scores of (i, j), i < j, offered to record j while record i is scored:
  // with a symmetric matrix they are j's scores against the earlier records.
  std::vector<Candidates> earlier(n);
  AlignStats stats;
  std::vector<std::vector<Kept>> rows;
  std::vector<PairIndex> to_align;
  std::vector<AlignResult> aligned;
  std::vector<AlignHit> hits;
  for (std::size_t first = 0; first < n; first += kSlice) {
    const std::size_t last = std::min(n, first + kSlice);
    rows.assign(last - first, {});
    for (std::size_t i = first; i < last; ++i) {
      const auto later = q.subspan(i + 1);
      std::vector<SearchHit> scored;
      if (!later.empty()) scored = std::move(scorer.search(q.subspan(i, 1), later, 0).front());
      stats.pairs += later.size();
      stats.cells += cells_of(q.subspan(i, 1), later);
      for (const SearchHit& h : scored)
        earlier[i + 1 + h.target].offer({h.result.score, static_cast<std::uint32_t>(i)}, top);
      // Record i's hits: the best of its earlier candidates and its later
      // ones (already in better_hit order, so the first `top` are enough).
      const std::size_t own = top == 0 ? scored.size() : std::min(top, scored.size());
      std::vector<Candidate> merged = earlier[i].take(0);
      const std::size_t from_earlier = merged.size();
      for (std::size_t k = 0; k < own; ++k)
        merged.push_back({scored[k].result.score,
                          static_cast<std::uint32_t>(i + 1 + scored[k].target),
                          static_cast<std::uint32_t>(k)});
      std::inplace_merge(merged.begin(), merged.begin() + static_cast<std::ptrdiff_t>(from_earlier),
                         merged.end(), better);
      if (top != 0 && merged.size() > top) merged.resize(top);
      std::vector<Kept>& row = rows[i - first];
      for (const Candidate& c : merged) {
        Kept kept{c.target, std::nullopt};
        // A later target's result from the scoring pass is the search's;
        // with traceback it is aligned again (as CpuEngine::search does).
        if (c.scored != Candidate::kNone && !job.traceback)
          kept.result = std::move(scored[c.scored].result);
        row.push_back(std::move(kept));
      }
      earlier[i] = Candidates{};
    }
    // Earlier targets (and, with traceback, every kept one) are aligned with
    // this record as the query: the end cell of a local alignment's tie and
    // the traceback's choices follow the query/target roles, so the other
    // direction's result is not reused.
    to_align.clear();
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (const Kept& k : rows[r])
        if (!k.result) to_align.push_back({static_cast<std::uint32_t>(first + r), k.target});
    aligned.assign(to_align.size(), {});
    if (!to_align.empty()) aligner.align_pairs(q, q, to_align, aligned);
    hits.clear();
    std::size_t next = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (Kept& k : rows[r])
        hits.push_back({static_cast<std::uint32_t>(first + r), k.target,
                        k.result ? std::move(*k.result) : std::move(aligned[next++])});
    emit(hits);
    if (job.progress) job.progress(last);
  }
  return stats;
}

}  // namespace seqfuse::align
