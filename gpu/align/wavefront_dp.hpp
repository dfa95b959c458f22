// The long targets' search kernel (score_db_long.cu), one warp per (query,
// target) pair, as SF_HOST_DEVICE code so the CPU emulation test
// (tests/unit/test_align_wavefront_emulated.cpp) runs the very arithmetic,
// sentinels, pass edges and end-cell rules the kernel runs.
//
// Why: the other search kernels give a pair to one thread, so a launch lasts
// at least as long as one thread's sweep of its longest pair (mmseqs2-
// examples: 8,081 x 4,291 cells, about 1 s on an H100 while everything else
// was done; bench/results/align-gpu-notes.md). Here the 32 lanes of a warp
// split the query: lane k holds rows i0 + 16k .. i0 + 16k + 15 of a pass of
// 512 rows and sweeps the target one column behind lane k - 1 (a wavefront),
// receiving the H and F of the row above and the target letter from lane
// k - 1 by shuffles. A pass's last row goes to an edge strip in device memory
// for the next pass. Arithmetic is 32-bit (no saturation), the F chain one
// add-max per row as in the other kernels.
//
// Semantics are reference_score's: for local alignment the first best cell
// in column-major order (smallest j, then smallest i), (0, 0) for a score of
// 0, (-1, -1) for an empty sequence; global ends at (m - 1, n - 1).
#pragma once

#include <cstdint>

#include "gpu/align/dp_cell.hpp"
#include "gpu/align/pair_dp.hpp"
#include "gpu/align/score_db.hpp"

namespace seqfuse::gpu::wavefront {

inline constexpr int kLaneRows = 16;
inline constexpr int kLanes = 32;  // lanes per pair (a CUDA warp; half an AMD wavefront)
inline constexpr int kPassRows = kLaneRows * kLanes;
// The substitution table is the pairs kernel's (pair_dp.hpp, search_table.cuh):
// table[q * kTableStride + t], row kSentinelRow of kPastEnd for rows past the
// query's end (so low such a row never holds a cell as good as a real one:
// its H comes from E, F or 0, each below a real cell's).
using align::pairs::kNegInf;
using align::pairs::kSentinelRow;
using align::pairs::kTableStride;
static_assert(kTableStride == kMaxAlphabet, "query letters index the table's rows");

// Score of a gap of `length` letters, negated (0 for none).
SF_HOST_DEVICE int minus_gap(int length, int open, int extend) {
  return length <= 0 ? 0 : -(open + (length - 1) * extend);
}

// One lane's state: its rows of the current pass and its running result.
struct Lane {
  int H[kLaneRows], E[kLaneRows];
  int row_offset[kLaneRows];  // query letter x kTableStride (sentinel past the end)
  int i0 = 0;                 // first row
  int diag_up = 0;            // H(i0 - 1, j - 1) for the next column j
  int bottom_h = 0;           // H and F of the last row at the latest column
  int bottom_f = kNegInf;
  int best = 0, best_i = -1, best_j = -1;  // local: first best cell so far
  int last_h = 0;                          // global: H(m - 1, n - 1)
};

// Rows i0 .. i0 + kLaneRows - 1 of a pass, before its first column.
template <bool kLocal, class MaxPlus>
SF_HOST_DEVICE void begin_pass(Lane& lane, const std::uint8_t* query, int m, int i0, int open,
                               int extend) {
  lane.i0 = i0;
  SF_DEVICE_UNROLL
  for (int r = 0; r < kLaneRows; ++r) {
    lane.row_offset[r] = MaxPlus::opaque(
        (i0 + r < m ? static_cast<int>(query[i0 + r]) : kSentinelRow) * kTableStride);
    lane.H[r] = kLocal ? 0 : minus_gap(i0 + r + 1, open, extend);  // H(i, -1)
    lane.E[r] = kNegInf;
  }
  lane.diag_up = kLocal ? 0 : minus_gap(i0, open, extend);  // H(i0 - 1, -1)
}

// Column j (< n) of the lane's rows, given the target letter t and H and F
// of row i0 - 1 at column j (the lane above, an edge or the boundary row).
template <bool kLocal, class MaxPlus>
SF_HOST_DEVICE void sweep_column(Lane& lane, int j, int t, int up_h, int up_f, const int* table,
                                 int open, int extend, int m, int n) {
  int diag = lane.diag_up;
  lane.diag_up = up_h;
  int f = MaxPlus::add_max(up_f, -extend, up_h - open);  // F(i0, j)
  int column_best = 0;
  SF_DEVICE_UNROLL
  for (int r = 0; r < kLaneRows; ++r) {
    const int e = MaxPlus::add_max(lane.E[r], -extend, lane.H[r] - open);  // E(i, j)
    const int match = diag + table[lane.row_offset[r] + t];
    // H' (no F) then H = max(H', F); F(i + 1) = max(F - extend, H' - open)
    // as open >= extend: one add-max per row on the F chain.
    const int h_no_f = kLocal ? MaxPlus::max3_relu(match, e, 0) : align::max_of(match, e);
    const int h = align::max_of(h_no_f, f);
    diag = lane.H[r];
    lane.H[r] = h;
    lane.E[r] = e;
    if (kLocal) column_best = align::max_of(column_best, h);
    if (r + 1 < kLaneRows) {
      f = MaxPlus::add_max(f, -extend, h_no_f - open);  // F(i + 1, j)
    } else {
      lane.bottom_h = h;
      lane.bottom_f = f;
    }
  }
  if (kLocal) {
    // The first best cell in column-major order: columns come in order
    // within a pass, so a later pass (larger i) must beat an equal score
    // at a smaller j.
    if (column_best > lane.best || (column_best == lane.best && j < lane.best_j)) {
      lane.best = column_best;
      lane.best_j = j;
      SF_DEVICE_UNROLL
      for (int r = kLaneRows - 1; r >= 0; --r)
        if (lane.H[r] == column_best) lane.best_i = lane.i0 + r;
    }
  } else if (j == n - 1) {
    SF_DEVICE_UNROLL
    for (int r = 0; r < kLaneRows; ++r)
      if (lane.i0 + r == m - 1) lane.last_h = lane.H[r];
  }
}

// Whether local result a (score, i, j) comes before b: higher score, then
// smaller j, then smaller i (a lane that saw no positive cell has j = -1 and
// score 0, and loses to any lane with a cell).
SF_HOST_DEVICE bool local_first(int score_a, int i_a, int j_a, int score_b, int i_b, int j_b) {
  if (score_a != score_b) return score_a > score_b;
  if ((j_a < 0) != (j_b < 0)) return j_b < 0;
  if (j_a != j_b) return j_a < j_b;
  return i_a < i_b;
}

// The pair's result from the lanes' reduced values.
SF_HOST_DEVICE PairScore finish_local(int best, int best_i, int best_j) {
  PairScore result;
  result.score = best;
  // A local score of 0 is reported at cell (0, 0), as Parasail does.
  result.query_end = best_i < 0 ? 0 : best_i;
  result.target_end = best_j < 0 ? 0 : best_j;
  return result;
}

// An empty query or target.
SF_HOST_DEVICE PairScore empty_pair(bool local, int m, int n, int open, int extend) {
  PairScore result;
  if (!local) {
    result.score = minus_gap(m + n, open, extend);
    result.query_end = m - 1;
    result.target_end = n - 1;
  }
  return result;
}

// Lanes of a pass that hold at least one row of the query.
SF_HOST_DEVICE int active_lanes(int m, int p0) {
  const int rows = m - p0;
  const int lanes = (rows + kLaneRows - 1) / kLaneRows;
  return lanes < kLanes ? lanes : kLanes;
}

}  // namespace seqfuse::gpu::wavefront
