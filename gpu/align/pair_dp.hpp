// Score and end cell of one pair (query i against target j), as SF_HOST_DEVICE
// code shared by the pairs score kernel (score_pairs.cu) and its CPU
// emulation in tests/unit, so CI checks the very arithmetic, packing,
// sentinels and end-cell tie-breaking the kernel runs.
//
// One thread per pair (inter-sequence parallelism). The query is swept kRows
// rows at a time with H, E and the rows' matrix offsets in registers; each
// chunk walks every target column; H and F of a chunk's last row go to an
// edge strip in device memory for the next chunk (none for a query of at
// most kRows letters). Letters arrive packed, kBits per code, in 32-bit
// words interleaved lane by lane over a group of kGroup pairs, so the
// threads of a warp read neighbouring words. Arithmetic is 32-bit; the edge
// strip is 16-bit when a bound on the pair's cells proves it exact
// (narrow_edge_fits), so no value can saturate and nothing is rerun.
//
// Semantics are reference_score's: Gotoh with affine gaps (a gap of length k
// costs open + (k - 1) * extend), local H clamped at 0, and the local end
// the first best cell in column-major order (smallest j, then smallest i),
// (0, 0) for a local score of 0, (-1, -1) when a sequence is empty.
#pragma once

#include <climits>
#include <cstdint>

#include "gpu/align/dp_cell.hpp"


// Query rows held in registers per chunk; a build flag so variants can be
// timed side by side (as SEQFUSE_SCORE_ROWS for score_db.cu).
#ifndef SEQFUSE_PAIR_ROWS
#define SEQFUSE_PAIR_ROWS 32
#endif

namespace seqfuse::align::pairs {

inline constexpr int kRows = SEQFUSE_PAIR_ROWS;
// Pairs per interleaved group: a layout constant, not the warp size. A
// multiple of every warp size (32 on NVIDIA, 64 on CDNA), so no warp spans
// two groups and each warp's loads of one word index are contiguous.
inline constexpr std::uint32_t kGroup = 64;
// Substitution table as the kernel keeps it in shared memory:
// table[q * kTableStride + t], plus a sentinel row kSentinelRow for rows
// past the query's end. kTableStride equals gpu::kMaxAlphabet.
inline constexpr int kTableStride = 32;
inline constexpr int kSentinelRow = kTableStride;
inline constexpr int kTableSize = (kTableStride + 1) * kTableStride;
// The reference's "minus infinity" for E and F before any gap.
inline constexpr int kNegInf = INT_MIN / 4;
// Substitution score of rows past the query's end: so low that such a row
// never holds a cell as good as the best real cell (see pair_score).
inline constexpr int kPastEnd = -(1 << 20);
// A 16-bit edge is used when every H and F it may hold lies within this.
inline constexpr std::int64_t kNarrowLimit = 32000;

static_assert(kRows > 0 && kRows % 8 == 0, "kRows must hold whole words of 4- and 8-bit codes");

struct PairEnd {
  std::int32_t score = 0;
  std::int32_t query_end = -1;
  std::int32_t target_end = -1;
};

// Where group g's words begin (lane 0's first word); lane l adds l.
struct PairGroup {
  std::uint64_t query_word = 0;   // query word w of lane l: words[query_word + w * kGroup + l]
  std::uint64_t target_word = 0;  // likewise for the target
  std::uint64_t edge = 0;         // edge cell of column j: edges[edge + j * kGroup + l]
};

struct PairLengths {
  std::uint32_t m = 0;  // query letters
  std::uint32_t n = 0;  // target letters
};

// H and F of a chunk's last row at one column.
struct EdgeWide {
  std::int32_t h, f;
};
struct alignas(4) EdgeNarrow {
  std::int16_t h, f;
};

SF_HOST_DEVICE void edge_store(EdgeWide* at, int h, int f) {
  *at = EdgeWide{h, f};
}
SF_HOST_DEVICE void edge_store(EdgeNarrow* at, int h, int f) {
  *at = EdgeNarrow{static_cast<std::int16_t>(h), static_cast<std::int16_t>(f)};
}
SF_HOST_DEVICE void edge_load(const EdgeWide* at, int& h, int& f) {
  const EdgeWide e = *at;
  h = e.h;
  f = e.f;
}
SF_HOST_DEVICE void edge_load(const EdgeNarrow* at, int& h, int& f) {
  const EdgeNarrow e = *at;
  h = e.h;
  f = e.f;
}

// What one launch reads: packed letters, group table and lengths by slot.
struct PairBatchView {
  const std::uint32_t* words;
  const PairGroup* groups;
  const PairLengths* lengths;
  std::uint32_t slots;  // a multiple of kGroup
};

// Codes per 32-bit word: 4-bit codes for alphabets of at most 16 letters
// (DNA with N and the IUPAC codes: 15), 8-bit otherwise (protein, <= 32).
inline constexpr int code_bits(int alphabet_size) {
  return alphabet_size <= 16 ? 4 : 8;
}

// Whether every H and F a pair of m x n cells can reach fits the 16-bit
// edge. Global H is at least the all-gap path's -(gap(i+1) + gap(j+1)) >=
// -(2 open + (m + n) extend) and F >= H above - open; no score exceeds
// min(m, n) x the best substitution (gaps only subtract). Local H >= 0.
inline bool narrow_edge_fits(std::int64_t m, std::int64_t n, GapPenalties gaps,
                             std::int64_t max_substitution) {
  const std::int64_t upper = (m < n ? m : n) * (max_substitution > 0 ? max_substitution : 0);
  const std::int64_t lower = 3 * std::int64_t{gaps.open} + (m + n) * std::int64_t{gaps.extend};
  return upper <= kNarrowLimit && lower <= kNarrowLimit;
}

// Max-plus operations with plain integer semantics; the kernel passes a
// policy with the same semantics that uses Hopper DPX (gpu/primitives/dpx.cuh).
struct PortableMaxPlus {
  static SF_HOST_DEVICE int add_max(int a, int b, int c) { return max_of(a + b, c); }
  static SF_HOST_DEVICE int max3(int a, int b, int c) { return max_of(a, max_of(b, c)); }
  static SF_HOST_DEVICE int max3_relu(int a, int b, int c) {
    return max_of(max_of(a, 0), max_of(b, c));
  }
  // The value, hidden from the optimizer (the device policy): see pair_score.
  static SF_HOST_DEVICE int opaque(int x) { return x; }
};

// Score and end cell of the pair in `slot`. `table` is the kTableSize table
// (pair_table in score_pairs.hpp builds it); `edges` has the batch's edge
// cells of this Edge type.
template <bool kLocal, int kBits, class Edge, class MaxPlus>
SF_HOST_DEVICE PairEnd pair_score(const PairBatchView& batch, Edge* edges, std::uint32_t slot,
                                  const int* table, GapPenalties gaps) {
  constexpr int kPerWord = 32 / kBits;
  constexpr std::uint32_t kMask = (1u << kBits) - 1u;
  static_assert(kRows % kPerWord == 0, "a chunk must hold whole query words");

  const PairLengths lengths = batch.lengths[slot];
  const int m = static_cast<int>(lengths.m);
  const int n = static_cast<int>(lengths.n);
  PairEnd result;
  if (m == 0 || n == 0) {  // padding slots land here too
    if (!kLocal) {
      result.score = -gap_cost(m + n, gaps);
      result.query_end = m - 1;
      result.target_end = n - 1;
    }
    return result;
  }
  const PairGroup group = batch.groups[slot / kGroup];
  const std::uint32_t lane = slot % kGroup;
  const std::uint32_t* query = batch.words + group.query_word + lane;
  const std::uint32_t* target = batch.words + group.target_word + lane;
  Edge* edge = edges + group.edge + lane;
  const char* table_bytes = reinterpret_cast<const char*>(table);
  const int open = gaps.open;
  const int extend = gaps.extend;

  // Local best: column_best > best, or equal at a smaller j (only a later
  // chunk, at larger i, can meet an earlier column again). best_j starts at
  // 0, so zero-score columns never take over and a 0 score ends at (0, 0).
  int best = 0, best_i = 0, best_j = 0;
  int H[kRows];
  int last_chunk = 0;
  for (int i0 = 0; i0 < m; i0 += kRows) {
    last_chunk = i0;
    int q[kRows], E[kRows];
    SF_DEVICE_UNROLL
    for (int w = 0; w < kRows / kPerWord; ++w) {
      const int first_row = i0 + w * kPerWord;
      std::uint32_t word =
          first_row < m ? query[static_cast<std::uint64_t>(first_row / kPerWord) * kGroup] : 0u;
      SF_DEVICE_UNROLL
      for (int k = 0; k < kPerWord; ++k) {
        const int r = w * kPerWord + k;
        // Byte offsets of the rows' matrix rows; rows past the end read the
        // sentinel row. Opaque so the compiler keeps one register per row:
        // left to itself, nvcc kept the packed words and re-derived each
        // offset in every cell (about 7 more instructions per cell).
        q[r] = MaxPlus::opaque((i0 + r < m ? static_cast<int>(word & kMask) : kSentinelRow) *
                               kTableStride * static_cast<int>(sizeof(int)));
        word >>= kBits;
        H[r] = kLocal ? 0 : -gap_cost(i0 + r + 1, gaps);  // H(i, -1)
        E[r] = kNegInf;
      }
    }
    const bool from_edge = i0 > 0;
    const bool to_edge = i0 + kRows < m;
    int diag_top = kLocal ? 0 : -gap_cost(i0, gaps);  // H(i0 - 1, -1)
    // The next target word and edge cell are loaded a step ahead, so their
    // latency overlaps the cells of the current column(s).
    std::uint32_t word_next = target[0];
    std::uint32_t word = 0;
    int edge_h_next = 0, edge_f_next = kNegInf;
    if (from_edge) edge_load(edge, edge_h_next, edge_f_next);
    for (int j = 0; j < n; ++j) {
      if (j % kPerWord == 0) {
        word = word_next;
        if (j + kPerWord < n)
          word_next = target[static_cast<std::uint64_t>(j / kPerWord + 1) * kGroup];
      }
      // Column t of the table: a cell's lookup is then one add and one load.
      const char* column = table_bytes + (word & kMask) * sizeof(int);
      word >>= kBits;
      // H and F of row i0 - 1 at column j: the boundary row, or the edge
      // the previous chunk left.
      int h_up = kLocal ? 0 : -gap_cost(j + 1, gaps);
      int f = kNegInf;
      if (from_edge) {
        h_up = edge_h_next;
        f = edge_f_next;
        if (j + 1 < n)
          edge_load(edge + static_cast<std::uint64_t>(j + 1) * kGroup, edge_h_next, edge_f_next);
      }
      int diag = diag_top;  // H(i0 - 1, j - 1)
      diag_top = h_up;
      f = MaxPlus::add_max(f, -extend, h_up - open);  // F(i0, j)
      int column_best = 0;
      SF_DEVICE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        const int e = MaxPlus::add_max(E[r], -extend, H[r] - open);  // E(i, j)
        const int match = diag + *reinterpret_cast<const int*>(column + q[r]);
        const int h = kLocal ? MaxPlus::max3_relu(match, e, f) : MaxPlus::max3(match, e, f);
        diag = H[r];
        H[r] = h;
        E[r] = e;
        if (kLocal) column_best = max_of(column_best, h);
        if (r + 1 < kRows) {
          f = MaxPlus::add_max(f, -extend, h - open);  // F(i + 1, j)
        } else if (to_edge) {
          edge_store(edge + static_cast<std::uint64_t>(j) * kGroup, h, f);
        }
      }
      // Rows past the end (last chunk only) get their H from E or F, each
      // below a real cell of this or an earlier column, so below or equal
      // never matches the best here: they never win a tie or the maximum.
      if (kLocal && (column_best > best || (column_best == best && j < best_j))) {
        best = column_best;
        best_j = j;
        SF_DEVICE_UNROLL
        for (int r = kRows - 1; r >= 0; --r)
          if (H[r] == column_best) best_i = i0 + r;
      }
    }
  }
  if (kLocal) {
    result.score = best;
    result.query_end = best_i;
    result.target_end = best_j;
  } else {
    // The last chunk holds row m - 1; H is its column n - 1.
    SF_DEVICE_UNROLL
    for (int r = 0; r < kRows; ++r)
      if (last_chunk + r == m - 1) result.score = H[r];
    result.query_end = m - 1;
    result.target_end = n - 1;
  }
  return result;
}

}  // namespace seqfuse::align::pairs
