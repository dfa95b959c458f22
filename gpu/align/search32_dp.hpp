// The 32-bit database-search DP (score_db.cu) as SF_HOST_DEVICE code, so the
// CPU emulation test (tests/unit/test_align_search32_emulated.cpp) runs the
// very layout, arithmetic, sentinels, chunk edges and end-cell tie-breaking
// the kernel runs.
//
// One thread aligns one query against one target (Gotoh, affine gaps, 32-bit
// scores, so no score can saturate). The query is swept kRows rows at a time
// with H and E of those rows in registers; the last row of a chunk (H, F) is
// passed to the next chunk through the target's edge cells in device memory.
// Targets are the interleaved set of DeviceTargetSet (search16_dp.hpp,
// TargetLayout): a target's letter j, and its edge cell j, sit j x
// kSlotGroup after its first.
//
// Semantics are reference_score's: a gap of length k costs open + (k - 1) x
// extend, local H clamped at 0, the local end the first best cell in
// column-major order (smallest j, then smallest i), (0, 0) for a local score
// of 0, (-1, -1) when a sequence is empty.
#pragma once

#include <cstdint>

#include "gpu/align/dp_cell.hpp"
#include "gpu/align/pair_dp.hpp"
#include "gpu/align/score_db.hpp"

// Query rows held in registers per chunk; a build flag so variants can be
// timed side by side (bench/results/align-gpu-notes.md).
#ifndef SEQFUSE_SCORE_ROWS
#define SEQFUSE_SCORE_ROWS 32
#endif

namespace seqfuse::gpu::search32 {

inline constexpr int kRows = SEQFUSE_SCORE_ROWS;
static_assert(kRows > 0, "kRows must be positive");
// The substitution table is the pairs kernel's (pair_dp.hpp; on the device
// search_table.cuh loads it): table[q * kTableStride + t], and a sentinel
// row kSentinelRow of kPastEnd for rows past the query's end, so low that
// such a row never holds a cell better than the real rows above it.
using align::pairs::kNegInf;  // far below any score, safe to subtract from
using align::pairs::kSentinelRow;
using align::pairs::kTableStride;
static_assert(kTableStride == kMaxAlphabet, "query letters index the table's rows");

// Score and end cell of query (m letters) against one target (n letters;
// `target` at its letter 0, `edge` at its edge cell 0, both with column
// stride kSlotGroup). `table` is the kTableSize table. The edge cells are
// written before they are read (none for a query of at most kRows letters).
// MaxPlus: pair_dp.hpp's PortableMaxPlus or DeviceMaxPlus (DPX on Hopper).
template <bool kLocal, class MaxPlus>
SF_HOST_DEVICE PairScore score_target(const std::uint8_t* query, int m, const std::uint8_t* target,
                                      int n, EdgeHF* edge, const int* table,
                                      align::GapPenalties gaps) {
  PairScore result;
  if (m == 0 || n == 0) {
    if (!kLocal) {
      result.score = -align::gap_cost(m + n, gaps);
      result.query_end = m - 1;
      result.target_end = n - 1;
    }
    return result;
  }

  int best = 0, best_i = -1, best_j = -1;
  for (int i0 = 0; i0 < m; i0 += kRows) {
    int q[kRows], H[kRows], E[kRows];
    SF_DEVICE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      // Row offsets into the table; rows past the end use the sentinel row.
      q[r] = (i0 + r < m ? query[i0 + r] : kSentinelRow) * kTableStride;
      H[r] = kLocal ? 0 : -align::gap_cost(i0 + r + 1, gaps);  // H(i, -1)
      E[r] = kNegInf;
    }
    int diag_top = kLocal ? 0 : -align::gap_cost(i0, gaps);  // H(i0 - 1, -1)
    // Column j + 1's target letter and edge are loaded while column j is
    // computed: these loads sat on the critical path (ncu: most stalls were
    // waits on L1TEX at 3.7 warps per scheduler).
    int t_next = target[0];
    EdgeHF edge_next = i0 > 0 ? edge[0] : EdgeHF{0, kNegInf};
    for (int j = 0; j < n; ++j) {
      const int t = t_next;
      const EdgeHF edge_here = edge_next;
      if (j + 1 < n) {
        t_next = target[static_cast<std::size_t>(j + 1) * kSlotGroup];
        if (i0 > 0) edge_next = edge[static_cast<std::size_t>(j + 1) * kSlotGroup];
      }
      // H and F of row i0 - 1 at column j: the boundary row, or the edge the
      // previous chunk left.
      const int h_above = i0 > 0 ? edge_here.h : kLocal ? 0 : -align::gap_cost(j + 1, gaps);
      const int f_above = i0 > 0 ? edge_here.f : kNegInf;
      int diag = diag_top;  // H(i - 1, j - 1) for the chunk's first row
      diag_top = h_above;
      int f = MaxPlus::add_max(f_above, -gaps.extend, h_above - gaps.open);  // F(i0, j)
      int column_best = 0;
      // F is the only dependency from one row to the next. With H' =
      // max(match, E[, 0]) (no F in it), H = max(H', F) and F(i + 1) =
      // max(F - extend, H - open) = max(F - extend, H' - open) as open >=
      // extend (ScoringScheme's rule; can_implement checks it): one add-max
      // per row on the chain instead of three operations.
      SF_DEVICE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        const int e = MaxPlus::add_max(E[r], -gaps.extend, H[r] - gaps.open);  // E(i, j)
        const int match = diag + table[q[r] + t];
        const int h_no_f = kLocal ? MaxPlus::max3_relu(match, e, 0) : align::max_of(match, e);
        const int h = align::max_of(h_no_f, f);
        diag = H[r];
        H[r] = h;
        E[r] = e;
        if (kLocal) column_best = align::max_of(column_best, h);
        if (r + 1 < kRows) {
          f = MaxPlus::add_max(f, -gaps.extend, h_no_f - gaps.open);  // F(i + 1, j)
        } else if (i0 + kRows < m) {
          edge[static_cast<std::size_t>(j) * kSlotGroup] = EdgeHF{h, f};
        }
      }
      // The first best cell in column-major order (smallest j, then smallest
      // i). Columns come in order within a chunk, so only a later chunk
      // (larger i) must beat an equal score, and only at a smaller j. Rows
      // past the end (last chunk only) get their H from E, F or 0, each at
      // most a real cell's of this or an earlier column: never a new best.
      if (kLocal && (column_best > best || (column_best == best && j < best_j))) {
        best = column_best;
        best_j = j;
        SF_DEVICE_UNROLL
        for (int r = kRows - 1; r >= 0; --r)
          if (H[r] == column_best) best_i = i0 + r;
      }
    }
    if (!kLocal && i0 + kRows >= m) {
      // The last chunk holds row m - 1; H is now its column n - 1.
      SF_DEVICE_UNROLL
      for (int r = 0; r < kRows; ++r)
        if (i0 + r == m - 1) best = H[r];
    }
  }
  result.score = best;
  // A local score of 0 is reported at cell (0, 0), as Parasail does.
  result.query_end = kLocal ? (best_i < 0 ? 0 : best_i) : m - 1;
  result.target_end = kLocal ? (best_j < 0 ? 0 : best_j) : n - 1;
  return result;
}

}  // namespace seqfuse::gpu::search32
