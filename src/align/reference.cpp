#include "align/reference.hpp"

#include <climits>
#include <vector>

#include "align/cigar.hpp"
#include "core/error.hpp"

namespace seqfuse::align {
namespace {

// Below every reachable score, with room to subtract gap penalties.
constexpr int kNegativeInfinity = INT_MIN / 4;

int boundary(AlignMode mode, std::size_t length, GapPenalties gaps) {
  return mode == AlignMode::local ? 0 : -gap_cost(static_cast<int>(length), gaps);
}

// Trivial cases: an empty sequence aligns to gaps (global) or to nothing (local).
bool handle_empty(AlignMode mode, const ScoringScheme& scheme, Codes query, Codes target,
                  AlignResult& result) {
  if (!query.empty() && !target.empty()) return false;
  if (mode == AlignMode::global) {
    result.score = -gap_cost(static_cast<int>(query.size() + target.size()), scheme.gaps());
    result.query_end = static_cast<int>(query.size()) - 1;
    result.target_end = static_cast<int>(target.size()) - 1;
  }
  return true;
}

}  // namespace

// A local alignment's cells never fall below minus one gap opening (H is
// at least 0, E and F at least H minus an opening), so only global ones
// are bounded by the length of their longest gap.
void check_int_range(AlignMode mode, const ScoringScheme& scheme, std::size_t m, std::size_t n) {
  const double gap_bound =
      mode == AlignMode::local
          ? 4.0 * scheme.gap_open()
          : 4.0 * scheme.gap_open() + static_cast<double>(m + n + 1) * scheme.gap_extend();
  const double score_bound = 128.0 * static_cast<double>(m < n ? m : n);
  const double longest = static_cast<double>(m > n ? m : n);
  if (gap_bound > INT_MAX / 8 || score_bound > INT_MAX / 8 || longest > INT_MAX / 8) {
    throw Error("sequences of " + std::to_string(m) + " and " + std::to_string(n) +
                " residues are too long to score in 32-bit integers");
  }
}

AlignResult reference_score(AlignMode mode, const ScoringScheme& scheme, Codes query,
                            Codes target) {
  AlignResult result;
  if (handle_empty(mode, scheme, query, target, result)) return result;
  const std::size_t m = query.size();
  const std::size_t n = target.size();
  check_int_range(mode, scheme, m, n);
  const GapPenalties gaps = scheme.gaps();
  const bool local = mode == AlignMode::local;
  const int floor = local ? 0 : kNegativeInfinity;

  // Column j - 1 of H and E, indexed by query row + 1 (index 0 is row -1).
  std::vector<int> h(m + 1);
  std::vector<int> e(m + 1, kNegativeInfinity);
  for (std::size_t i = 0; i <= m; ++i) h[i] = boundary(mode, i, gaps);

  int best = 0;
  std::size_t best_i = 0;
  std::size_t best_j = 0;
  // Target outer, query inner: the scan order whose first maximum Parasail reports.
  for (std::size_t j = 0; j < n; ++j) {
    int diagonal = h[0];
    h[0] = boundary(mode, j + 1, gaps);
    int f = kNegativeInfinity;
    const std::uint8_t t = target[j];
    for (std::size_t i = 0; i < m; ++i) {
      const AffineCell cell = affine_cell(diagonal, scheme.score(query[i], t), h[i + 1], e[i + 1],
                                          h[i], f, gaps, floor);
      diagonal = h[i + 1];
      h[i + 1] = cell.h;
      e[i + 1] = cell.e;
      f = cell.f;
      if (local && cell.h > best) {
        best = cell.h;
        best_i = i;
        best_j = j;
      }
    }
  }
  if (local) {
    result.score = best;
    result.query_end = static_cast<int>(best_i);
    result.target_end = static_cast<int>(best_j);
  } else {
    result.score = h[m];
    result.query_end = static_cast<int>(m) - 1;
    result.target_end = static_cast<int>(n) - 1;
  }
  return result;
}

AlignResult reference_align(AlignMode mode, const ScoringScheme& scheme, Codes query,
                            Codes target) {
  AlignResult result;
  result.traced = true;
  const std::size_t m = query.size();
  const std::size_t n = target.size();
  if (handle_empty(mode, scheme, query, target, result)) {
    CigarBuilder cigar;
    for (std::size_t k = 0; mode == AlignMode::global && k < m; ++k) cigar.push_reversed('I');
    for (std::size_t k = 0; mode == AlignMode::global && k < n; ++k) cigar.push_reversed('D');
    result.cigar = cigar.finish(result.matches);
    result.alignment_length = static_cast<int>(cigar.columns());
    if (cigar.columns() > 0) result.query_begin = result.target_begin = 0;
    return result;
  }
  check_int_range(mode, scheme, m, n);
  const GapPenalties gaps = scheme.gaps();
  const bool local = mode == AlignMode::local;
  const int floor = local ? 0 : kNegativeInfinity;

  std::vector<std::uint8_t> trace(m * n);  // trace[j * m + i]
  std::vector<int> h(m + 1);
  std::vector<int> e(m + 1, kNegativeInfinity);
  for (std::size_t i = 0; i <= m; ++i) h[i] = boundary(mode, i, gaps);
  int best = 0;
  std::size_t best_i = 0;
  std::size_t best_j = 0;
  for (std::size_t j = 0; j < n; ++j) {
    int diagonal = h[0];
    h[0] = boundary(mode, j + 1, gaps);
    int f = kNegativeInfinity;
    const std::uint8_t t = target[j];
    std::uint8_t* column_trace = trace.data() + j * m;
    for (std::size_t i = 0; i < m; ++i) {
      const AffineCell cell =
          affine_cell_traced(diagonal, scheme.score(query[i], t), h[i + 1], e[i + 1], h[i], f, gaps,
                             floor, local, &column_trace[i]);
      diagonal = h[i + 1];
      h[i + 1] = cell.h;
      e[i + 1] = cell.e;
      f = cell.f;
      if (local && cell.h > best) {
        best = cell.h;
        best_i = i;
        best_j = j;
      }
    }
  }
  long i = local ? static_cast<long>(best_i) : static_cast<long>(m) - 1;
  long j = local ? static_cast<long>(best_j) : static_cast<long>(n) - 1;
  result.score = local ? best : h[m];
  result.query_end = static_cast<int>(i);
  result.target_end = static_cast<int>(j);
  if (local && best == 0) return result;  // no alignment columns

  enum class State { in_h, in_e, in_f } state = State::in_h;
  CigarBuilder cigar;
  while (i >= 0 && j >= 0) {
    const std::uint8_t bits = trace[static_cast<std::size_t>(j) * m + static_cast<std::size_t>(i)];
    if (state == State::in_h) {
      const int from = bits & kTraceHMask;
      if (from == kTraceFromFloor) break;
      if (from == kTraceFromDiagonal) {
        cigar.push_reversed(query[i] == target[j] ? '=' : 'X');
        --i;
        --j;
      } else {
        state = from == kTraceFromE ? State::in_e : State::in_f;
      }
    } else if (state == State::in_e) {
      cigar.push_reversed('D');
      if (!(bits & kTraceEExtends)) state = State::in_h;
      --j;
    } else {
      cigar.push_reversed('I');
      if (!(bits & kTraceFExtends)) state = State::in_h;
      --i;
    }
  }
  if (!local) {  // the rest runs along the boundary row or column
    for (; i >= 0; --i) cigar.push_reversed('I');
    for (; j >= 0; --j) cigar.push_reversed('D');
  }
  result.query_begin = static_cast<int>(i + 1);
  result.target_begin = static_cast<int>(j + 1);
  result.cigar = cigar.finish(result.matches);
  result.alignment_length = static_cast<int>(cigar.columns());
  return result;
}

}  // namespace seqfuse::align
