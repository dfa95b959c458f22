// The 16-bit database-search DP (score_db16.cu) as SF_HOST_DEVICE code, so
// the CPU emulation test (tests/unit/test_align_search16_emulated.cpp) runs
// the very layout, packing, arithmetic and saturation flags the kernel runs.
//
// One thread scores one target against two queries at once, one per signed
// 16-bit lane of every 32-bit register (s16x2, Hopper DPX where present,
// gpu/primitives/dpx.cuh). Global alignment: queries 2p and 2p + 1 of a
// launch, which the engine sorts longest first, so the two lengths are
// close. Local alignment: each lane may carry several queries one after
// another, along a plan of chunks (plan_lanes). Both lanes read the same
// target letter, so the substitution word of a cell pair is one 32-bit
// entry of a per-chunk profile of the lanes' packed scores in shared
// memory: four rows per 16-byte load and no instruction to
// join two lookups (the two-targets-per-thread form needed a byte permute
// per cell pair on the ALU pipe, which the kernel saturates: run 30). The
// query pair is swept kRows rows at a time with H and E of those rows in
// registers (packed); H and F of a chunk's last row go to a per-thread edge
// strip (packed pairs) for the next chunk.
//
// Exactness. 16 bits cannot hold every score, so:
// - local (SW): H >= 0 and E, F >= -open after their first update, so only
//   the top can overflow. A lane whose best reaches sat_limit = 32767 - (best
//   substitution) - open is flagged (score kRerun): every cell computed
//   before that is exact (its diagonal was below sat_limit; the registers
//   hold values up to H + open), and the host reruns the pair with the
//   32-bit kernel.
// - global (NW): values go down to about -(4 open + (m + n) extend); a bound
//   on the thread's longer pair (the longer query: global_pair_fits) decides
//   before any cell whether 16 bits are exact; otherwise both lanes are
//   flagged at once.
// Semantics are the 32-bit kernel's (reference_score's): score, and for
// local alignment the first best cell in column-major order, (0, 0) for a
// local score of 0, (-1, -1) for an empty sequence.
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

#include "gpu/align/score_db.hpp"
#include "gpu/host_loop.hpp"
#include "gpu/primitives/dpx.cuh"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SF_S16_DEVICE_PASS 1
#endif

// Query rows held in registers per chunk (a build flag, as SEQFUSE_SCORE_ROWS
// is for the 32-bit kernel).
#ifndef SEQFUSE_SCORE16_ROWS
#define SEQFUSE_SCORE16_ROWS 32
#endif

namespace seqfuse::gpu::search16 {

inline constexpr int kRows = SEQFUSE_SCORE16_ROWS;
// Letter of the interleaved padding past a target's end (never read by the
// thread sweeping that target; its profile entry scores like a row past the
// query's end).
inline constexpr std::uint8_t kPadCode = kMaxAlphabet;
// The chunk's query profile, letter-major: profile[t * kProfileStride + r]
// for codes t = 0 .. kPadCode and rows r < kRows, one 32-bit word per entry
// with query 2p's score in the low half and query 2p + 1's in the high
// half, so the scores of 4 consecutive rows against one letter are one
// 16-byte load (ld.shared.v4). The stride pads each letter by 4 words: a
// quarter warp's 16-byte loads of different letters then fall on different
// banks unless their codes differ by a multiple of 8.
inline constexpr int kProfileLetters = kMaxAlphabet + 1;
inline constexpr int kProfileStride = kRows + 4;
inline constexpr int kProfileSize = kProfileLetters * kProfileStride;
static_assert(kRows % 4 == 0, "rows come in 16-byte groups of 4");
// Score of a pair the 16-bit kernel could not score exactly.
inline constexpr std::int32_t kRerun = INT32_MIN;
// Bounds within which the 16-bit arithmetic is exact (with margin to 32767).
inline constexpr std::int64_t kNarrowLimit = 32000;
inline constexpr int kParamLimit = 16000;
// Substitution score (before the +open bias) of rows past the query's end
// and of padding letters: H_diag + kPastEnd lies in [-32768, -1] for every
// unsaturated H_diag in [0, 32767], so it never wraps and never beats 0.
inline constexpr int kPastEnd = -32768;

static_assert(kRows > 0, "kRows must be positive");

struct Params16 {
  int open = 11;
  int extend = 1;
  int min_sub = 0;  // the matrix's lowest and highest substitution scores
  int max_sub = 0;
  int sat_limit = 32767;  // local: a lane whose best reaches this is rerun
  // 1, as a kernel parameter: the multiplier of sub_no_borrow's IMAD.
  std::uint32_t fma_one = 1;
};

// A chunk's last row at one column, both lanes packed: local, H and F +
// open; global, H - open and F (each mode's register forms).
struct alignas(8) Edge16 {
  std::uint32_t h, f;
};

// What one launch reads (device pointers).
struct Targets16 {
  const std::uint8_t* codes;    // interleaved (TargetLayout::codes)
  const std::uint32_t* length;  // per slot
  const std::uint64_t* base;    // per slot: interleaved start including lane
  std::uint32_t slots;
  std::uint64_t interleaved;  // bytes; edge cells per query pair = interleaved
  std::uint64_t base_offset;  // interleaved start of slot 0's group: edges count from there
};
using Queries16 = QueryBatch;

inline Params16 make_params16(const ScoreParams& params) {
  Params16 p;
  p.open = params.gap_open;
  p.extend = params.gap_extend;
  if (!params.matrix.empty()) {
    p.min_sub = *std::min_element(params.matrix.begin(), params.matrix.end());
    p.max_sub = *std::max_element(params.matrix.begin(), params.matrix.end());
  }
  p.sat_limit = 32767 - std::max(p.max_sub, 0) - p.open;
  return p;
}

// Whether the scoring can use 16-bit lanes at all: gap costs and scores far
// inside the range, so that E, F >= -(open + extend), the biased profile
// (substitution + open) and the past-the-end score never wrap; and opening
// at least as costly as extending (ScoringScheme's rule), which score_lanes_global's
// F recurrence relies on.
inline bool params_fit(const Params16& p) {
  return p.open >= p.extend && p.extend >= 0 && p.open + p.extend <= kParamLimit &&
         p.min_sub >= -kParamLimit && p.max_sub <= kParamLimit;
}

// Global alignment: whether every value of an m x n pair (and the thread's
// partner, which is no longer) fits. H >= -(2 open + (m + n) extend) (the
// all-gap path), E and F >= H - open, minus one more extend inside an
// update, F read once more as F - open, and a diagonal plus the lowest
// substitution; no value exceeds min(m, n) x the best substitution (plus
// open in the biased profile sum).
SF_HOST_DEVICE bool global_pair_fits(std::int64_t m, std::int64_t n, const Params16& p) {
  const std::int64_t lower = 4 * std::int64_t{p.open} + (m + n + 1) * std::int64_t{p.extend} +
                             (p.min_sub < 0 ? -std::int64_t{p.min_sub} : 0);
  const std::int64_t upper = (m < n ? m : n) * (p.max_sub > 0 ? p.max_sub : 0) + p.open;
  return lower <= kNarrowLimit && upper <= kNarrowLimit;
}

SF_HOST_DEVICE int gap16(int length, const Params16& p) {
  return length <= 0 ? 0 : p.open + (length - 1) * p.extend;
}

// Rows i0 .. i0 + kRows - 1 of the query pair's profile, entries begin,
// begin + step, ... (the kernel's threads share the work; the emulation
// passes 0, 1). Lane k of entry (t, r) = matrix[query_k[i0 + r]][t] + open:
// biased by +open because both modes' sums want it (local: Ĥ = H + open;
// global: H - open in the registers; see score_lanes_*). Rows past a
// query's end and codes past the alphabet (padding) get kPastEnd + open in
// that lane; so do the stride's pad rows, which are never read.
SF_HOST_DEVICE void fill_profile(std::uint32_t* profile, const int* matrix, int alphabet,
                                 const std::uint8_t* query0, int m0, const std::uint8_t* query1,
                                 int m1, int i0, int open, int begin, int step) {
  for (int k = begin; k < kProfileSize; k += step) {
    const int t = k / kProfileStride;
    const int r = k % kProfileStride;
    const bool letter = r < kRows && t < alphabet;
    const int v0 = letter && i0 + r < m0 ? matrix[query0[i0 + r] * alphabet + t] : kPastEnd;
    const int v1 = letter && i0 + r < m1 ? matrix[query1[i0 + r] * alphabet + t] : kPastEnd;
    profile[k] = pack_s16x2(v0 + open, v1 + open);
  }
}

// Profile rows g * 4 .. g * 4 + 3 of one letter, one 16-byte load on the
// device.
struct Rows4 {
  std::uint32_t w[4];
};
SF_HOST_DEVICE Rows4 load_rows4(const std::uint32_t* at) {
#ifdef SF_S16_DEVICE_PASS
  const uint4 v = *reinterpret_cast<const uint4*>(at);
  return Rows4{{v.x, v.y, v.z, v.w}};
#else
  return Rows4{{at[0], at[1], at[2], at[3]}};
#endif
}

// Lane k of a packed word.
SF_HOST_DEVICE int lane_s16(std::uint32_t x, int k) {
  return k == 0 ? lane0_s16(x) : lane1_s16(x);
}

// Column j + 1's letter and edge cell are loaded while column j is computed:
// calls column(j, letter, edge cell) for j = 0 .. columns - 1 (the edge
// cell is read only when from_edge): the global sweep. The local one loads
// without a branch, which would split its step (score_lanes_local).
template <class Column>
SF_HOST_DEVICE void sweep_columns(const std::uint8_t* target, const Edge16* edge, int columns,
                                  bool from_edge, Column&& column) {
  std::uint32_t letter_next = 0;
  Edge16 edge_next{0, 0};
  if (columns > 0) {
    letter_next = target[0];
    if (from_edge) edge_next = edge[0];
  }
  for (int j = 0; j < columns; ++j) {
    const std::uint32_t letter = letter_next;
    const Edge16 edge_here = edge_next;
    if (j + 1 < columns) {
      letter_next = target[static_cast<std::size_t>(j + 1) * kSlotGroup];
      if (from_edge) edge_next = edge[static_cast<std::size_t>(j + 1) * kSlotGroup];
    }
    column(j, letter, edge_here);
  }
}

// One lane's result: `len` query letters against `n` target letters;
// `rerun` when 16 bits could not score it exactly.
template <bool kLocal>
SF_HOST_DEVICE PairScore lane_result(int len, int n, bool rerun, int score, int end_i, int end_j,
                                     const Params16& p) {
  PairScore result;
  if (len == 0 || n == 0) {
    if (!kLocal) {
      result.score = len + n == 0 ? 0 : -gap16(len + n, p);
      result.query_end = len - 1;
      result.target_end = n - 1;
    }
  } else if (rerun) {
    result.score = kRerun;
  } else {
    result.score = score;
    // A local score of 0 is reported at cell (0, 0), as Parasail does.
    result.query_end = end_i < 0 ? 0 : end_i;
    result.target_end = end_j < 0 ? 0 : end_j;
  }
  return result;
}

// The arguments of both modes' sweeps. One thread: the target (n letters)
// against queries 0 and 1 in lanes 0 and 1 (m0 and m1 letters, either may
// be the longer; m1 = 0 for a lone lane). `target` points at its first
// letter (interleaved, column stride kSlotGroup bytes); `edge` at the
// thread's first edge cell (column stride kSlotGroup). chunks(i0) returns
// the pair's profile of rows i0 ... and is called once per chunk of the
// longer query by every thread of a block, in order, whatever its target
// (the kernel's version synchronizes the block there).

// Local alignment: a pair of lanes sweeps a plan of chunks, each lane
// carrying several queries one after another (plan_lanes, on the host):
// chunk c holds rows row[k] .. row[k] + kRows - 1 of launch query query[k]
// in lane k (kIdleLane: none). A query starts at a chunk boundary.
struct LaneChunk {
  std::int32_t query[2];
  std::int32_t row[2];
};
inline constexpr std::int32_t kIdleLane = -1;

// Local alignment (Smith-Waterman), the search's hot loop. Registers hold H
// itself and Ê = E + open per row; the column carries F̂ = F + open:
//   Ê(i, j)       = max(Ê(i, j-1) - extend, H(i, j-1))         add-max
//   t             = max(H(i-1, j-1) + (s + open), Ê(i, j))      add-max (biased profile)
//   Ĥ = H + open  = max(t, F̂(i, j), open)                       3-way max
//   H             = Ĥ - open                                   FMA pipe
//   F̂(i + 1, j)   = max(F̂(i, j) - extend, H)                   add-max
// The local floor H >= 0 is the "open" in Ĥ's max, so Ĥ >= open in both
// lanes and the subtraction cannot borrow across them: one IMAD beside the
// ALU pipe (sub_no_borrow). With the column's best kept as a 3-way max per
// two rows, a cell pair costs 4.5 ALU instructions, where H - open in the
// registers needed 5.5 (SASS, run 36). E and F start at -open (Ê, F̂ = 0),
// which in local alignment is what their first update gives anyway.
//
// Exactness: a column's values are at most its diagonals plus max_sub +
// open; a lane whose best reaches sat_limit = 32767 - max_sub - open is
// flagged, so every value before that is exact. A flagged lane's values
// may wrap afterwards, but Ĥ >= open still holds (the max takes it), so
// they never reach the other lane.
//
// Latency. Each row's H waits on the row above (F̂, then Ĥ, then H: three
// dependent instructions per row), and a column swept in one piece was
// bound by the DPX instructions' latency, not by the ALU pipe: slower than
// the 6-instruction form (run 36). So the chunk's rows are cut into two
// halves that run one column apart: at step j the upper half computes
// column j and the lower half column j - 1, two independent chains in one
// basic block (no branch between them). Measured on an H100 (run 36d): the
// big search 8 % faster than the 6-instruction form as a whole process, the
// ALU pipe 81 % busy, still short of eligible warps. (A variant whose F chain is one add-max per
// row, G = F + 2 open from t - open, needs a second IMAD per cell pair and was 5 % slower: run
// 36e.)
//
// One thread: the target (n letters, interleaved: column stride kSlotGroup
// bytes; `edge` likewise) against the `plan_size` chunks of `plan`.
// chunks(chunk) returns the chunk's profile (every thread of a block calls
// it for every chunk, in order, whatever its target: the kernel's version
// synchronizes the block there); chunks.length(q) is query q's length.
// emit(q, score) takes each query's score once its last chunk is done.
template <class Chunks, class Emit>
SF_HOST_DEVICE void score_lanes_local(const std::uint8_t* target, Edge16* edge, int n,
                                      const LaneChunk* plan, int plan_size, const Params16& p,
                                      Chunks& chunks, Emit&& emit) {
  constexpr int kHalf = kRows / 2;
  static_assert(kHalf % 4 == 0, "each half starts a 16-byte group of profile rows");
  using Upper = std::integral_constant<int, 0>;
  using Lower = std::integral_constant<int, kHalf>;  // its first row
  const std::uint32_t ext = splat_s16x2(-p.extend);
  const std::uint32_t open = splat_s16x2(p.open);
  int best[2] = {0, 0}, best_i[2] = {-1, -1}, best_j[2] = {-1, -1};
  bool saturated[2] = {false, false};
  // A half-column goes to the exact per-lane test only when its best Ĥ
  // passes the half's `watch` in a lane: best + open, or best + open - 1
  // where an equal score wins (a column before the best's, in a chunk after
  // its one: the first best in column-major order is kept). A watch left
  // lower than that only sends more columns to the exact test.
  const auto watch_at = [&](int c) {
    int w[2];
    SF_DEVICE_UNROLL
    for (int k = 0; k < 2; ++k) {
      w[k] = best[k] + p.open - (c < best_j[k] ? 1 : 0);
      if (w[k] > 32767) w[k] = 32767;  // a flagged lane
    }
    return pack_s16x2(w[0], w[1]);
  };

  std::uint32_t H[kRows];
  std::uint32_t E[kRows];
  // Rows Half::value ... + kHalf - 1 at one column: f enters as F̂ of the
  // first row and diag as H of the row above at the previous column; they
  // leave as F̂ of the row after the half (the chunk's last row: its own)
  // and H(last row of the half, previous column). Returns the half's
  // column best Ĥ.
  const auto sweep_half = [&](auto half, const std::uint32_t* column, std::uint32_t& f,
                              std::uint32_t& diag) {
    constexpr int r0 = decltype(half)::value;
    std::uint32_t column_best = open, hh_even = open;
    // Every row's t first, bottom row first: H(r, c - 1) dies at row r's E
    // and row r + 1's t, so row r's t, and then its H, can take H's own
    // register, and the loop carries no register moves.
    std::uint32_t t[kHalf];
    const std::uint32_t diag_in = diag;
    diag = H[r0 + kHalf - 1];
    Rows4 rows{};
    SF_DEVICE_UNROLL
    for (int k = kHalf - 1; k >= 0; --k) {
      const int r = r0 + k;
      const std::uint32_t e = add_max_s16x2(E[r], ext, H[r]);
      E[r] = e;
      if (k % 4 == 3) rows = load_rows4(column + r - 3);
      t[k] = add_max_s16x2(k > 0 ? H[r - 1] : diag_in, rows.w[k % 4], e);
    }
    SF_DEVICE_UNROLL
    for (int k = 0; k < kHalf; ++k) {
      const int r = r0 + k;
      const std::uint32_t hh = max3_s16x2(t[k], f, open);
      const std::uint32_t h = sub_no_borrow(hh, open, p.fma_one);
      H[r] = h;
      if (k % 2 == 0)
        hh_even = hh;
      else
        column_best = max3_s16x2(column_best, hh_even, hh);
      if (r + 1 < kRows) f = add_max_s16x2(f, ext, h);  // F̂(i + 1, c)
    }
    return column_best;
  };
  // The first best cell in column-major order, per lane (as the 32-bit
  // kernel), for one half at column c, whose H the registers still hold.
  // Rows past a lane's query end score kPastEnd on the diagonal, so their H
  // comes from E or F (or 0), below a real cell of this or an earlier
  // column: they never win the maximum or a tie.
  const auto find_best = [&](auto half, const int(&i0)[2], int c, std::uint32_t column_best,
                             std::uint32_t& watch) {
    constexpr int r0 = decltype(half)::value;
    if (c == best_j[0] || c == best_j[1]) watch = watch_at(c);  // ties stop winning
    if (max_s16x2(column_best, watch) == watch) return;
    SF_DEVICE_UNROLL
    for (int k = 0; k < 2; ++k) {
      const int cb = lane_s16(column_best, k) - p.open;
      if (cb > best[k] || (cb == best[k] && c < best_j[k])) {
        best[k] = cb;
        best_j[k] = c;
        if (cb >= p.sat_limit) saturated[k] = true;
        SF_DEVICE_UNROLL
        for (int r = r0 + kHalf - 1; r >= r0; --r)
          if (lane_s16(H[r], k) == cb) best_i[k] = i0[k] + r;
      }
    }
    watch = watch_at(c);
  };

  for (int c = 0; c < plan_size; ++c) {
    const LaneChunk here = plan[c];
    const std::uint32_t* profile = chunks(here);
    const int i0[2] = {here.row[0], here.row[1]};
    SF_DEVICE_UNROLL
    for (int r = 0; r < kRows; ++r) H[r] = E[r] = 0;  // H(i, -1) = 0, E = -open
    // A lane that starts a query (or idles) takes the top boundary, H = 0
    // and F = -open: its half of the edge cell is masked to 0.
    const std::uint32_t from_edge = (i0[0] > 0 ? 0x0000ffffu : 0u) | (i0[1] > 0 ? 0xffff0000u : 0u);
    const bool to_edge = c + 1 < plan_size;
    std::uint32_t diag_top = 0;  // H(i0 - 1, c - 1) for the upper half's column c
    // From the upper half's column c to the lower half's: F̂(i0 + kHalf, c)
    // and H(i0 + kHalf - 1, c - 1).
    std::uint32_t mid_f = 0, mid_diag = 0;
    std::uint32_t watch_upper = watch_at(0), watch_lower = watch_upper;
    const std::uint32_t* column_before = profile;  // the lower half's column
    // Column j's letter and edge cell, loaded a step ahead. The loads take
    // no branch (the last column's cell is read again; the edge strip is
    // read in the first chunk too and ignored there): a branch would cut
    // the step in two, and the halves' chains would no longer interleave.
    std::uint32_t letter_next = n > 0 ? target[0] : 0;
    Edge16 edge_next = n > 0 ? edge[0] : Edge16{0, 0};
    // Step j: the upper half at column j (j < n), the lower half at j - 1
    // (j > 0). Both halves' arithmetic comes before either test, so the
    // compiler interleaves the two chains.
    const auto step = [&](int j, auto upper_on, auto lower_on) {
      std::uint32_t best_upper = 0, best_lower = 0;
      const std::uint32_t* column = column_before;
      const Edge16 up = edge_next;
      if constexpr (decltype(upper_on)::value) {
        column = profile + letter_next * kProfileStride;
        const std::size_t next = static_cast<std::size_t>(j + 1 < n ? j + 1 : j) * kSlotGroup;
        letter_next = target[next];
        edge_next = edge[next];
      }
      if constexpr (decltype(lower_on)::value) {
        std::uint32_t f = mid_f, diag = mid_diag;
        best_lower = sweep_half(Lower{}, column_before, f, diag);
        if (to_edge) edge[static_cast<std::size_t>(j - 1) * kSlotGroup] = Edge16{H[kRows - 1], f};
      }
      if constexpr (decltype(upper_on)::value) {
        // H and F̂ of row i0 - 1 at column j: the edge, or the top boundary.
        const std::uint32_t h_up = up.h & from_edge;
        std::uint32_t f = add_max_s16x2(up.f & from_edge, ext, h_up);  // F̂(i0, j)
        std::uint32_t diag = diag_top;
        diag_top = h_up;
        best_upper = sweep_half(Upper{}, column, f, diag);
        mid_f = f;
        mid_diag = diag;
      }
      if constexpr (decltype(lower_on)::value) find_best(Lower{}, i0, j - 1, best_lower, watch_lower);
      if constexpr (decltype(upper_on)::value) find_best(Upper{}, i0, j, best_upper, watch_upper);
      column_before = column;
    };
    if (n > 0) {
      step(0, std::true_type{}, std::false_type{});
      for (int j = 1; j < n; ++j) step(j, std::true_type{}, std::true_type{});
      step(n, std::false_type{}, std::true_type{});
    }
    SF_DEVICE_UNROLL
    for (int k = 0; k < 2; ++k) {
      if (here.query[k] == kIdleLane) continue;
      const int length = chunks.length(here.query[k]);
      if (i0[k] + kRows < length) continue;  // the query goes on in the next chunk
      emit(here.query[k],
           lane_result<true>(length, n, saturated[k], best[k], best_i[k], best_j[k], p));
      best[k] = 0;
      best_i[k] = best_j[k] = -1;
      saturated[k] = false;
    }
  }
}

// Global alignment (Needleman-Wunsch). Registers hold Hm = H - open (not
// H): E needs no separate subtraction (E = max(E - extend, Hm_left)), and
// the diagonal term H_diag + s = Hm_diag + (s + open) reads the
// +open-biased profile. Values go negative, so the local form's
// borrow-free subtraction does not apply.
//
// F, the gap coming down the column, is the only dependency from one row
// to the next. With H' = max(H_diag + s, E) (no F in it), H = max(H', F)
// and F(i + 1) = max(F - extend, H - open) = max(F - extend, H' - open) as
// open >= extend: one add-max per row on the chain; H' of all rows can be
// computed ahead of it.
template <class Chunks>
SF_HOST_DEVICE void score_lanes_global(const std::uint8_t* target, Edge16* edge, int m0, int m1,
                                       int n, const Params16& p, Chunks& chunks, PairScore& out0,
                                       PairScore& out1) {
  // "Minus infinity" for E before any gap: E is only ever read as E - extend
  // inside an add-max, and -32768 + extend - extend = -32768 is the lowest
  // 16-bit value: no wrap, and never above a real candidate. F is read as
  // F - open (H = max(H', F)) and F - extend, so its minus
  // infinity is -32768 + open (open >= extend: params_fit).
  const std::uint32_t neg_e = splat_s16x2(-32768 + p.extend);
  const std::uint32_t neg_f = splat_s16x2(-32768 + p.open);
  const std::uint32_t ext = splat_s16x2(-p.extend);
  const std::uint32_t minus_open = splat_s16x2(-p.open);
  const int m = m0 > m1 ? m0 : m1;  // rows every thread of the block sweeps
  const bool fits = global_pair_fits(m, n, p);
  const int lengths[2] = {m0, m1};
  int last_h[2] = {0, 0};  // H(m_k - 1, n - 1)

  std::uint32_t Hm[kRows];
  for (int i0 = 0; i0 < m; i0 += kRows) {
    const std::uint32_t* profile = chunks(i0);
    std::uint32_t E[kRows];
    SF_DEVICE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      // H(i, -1) - open; rows past a query's end may wrap: nothing real
      // depends on them.
      Hm[r] = splat_s16x2(-gap16(i0 + r + 1, p) - p.open);
      E[r] = neg_e;
    }
    const bool to_edge = i0 + kRows < m;
    std::uint32_t diag_top = splat_s16x2(-gap16(i0, p) - p.open);  // H(i0-1, -1)
    sweep_columns(target, edge, fits ? n : 0, i0 > 0, [&](int j, std::uint32_t letter, Edge16 up) {
      // Hm and F of row i0 - 1 at column j: the boundary row or the edge.
      const std::uint32_t hm_up = i0 > 0 ? up.h : splat_s16x2(-gap16(j + 1, p) - p.open);
      std::uint32_t f = add_max_s16x2(i0 > 0 ? up.f : neg_f, ext, hm_up);  // F(i0, j)
      std::uint32_t diag = diag_top;
      diag_top = hm_up;
      const std::uint32_t* column = profile + letter * kProfileStride;
      Rows4 rows{};
      SF_DEVICE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        const std::uint32_t e = add_max_s16x2(E[r], ext, Hm[r]);  // E(i, j)
        if (r % 4 == 0) rows = load_rows4(column + r);
        // H' - open, then H - open = max(H' - open, F - open).
        const std::uint32_t hpm = add_s16x2(add_max_s16x2(diag, rows.w[r % 4], e), minus_open);
        const std::uint32_t hm = add_max_s16x2(f, minus_open, hpm);
        diag = Hm[r];
        Hm[r] = hm;
        E[r] = e;
        if (r + 1 < kRows) {
          f = add_max_s16x2(f, ext, hpm);  // F(i + 1, j)
        } else if (to_edge) {
          edge[static_cast<std::size_t>(j) * kSlotGroup] = Edge16{hm, f};
        }
      }
    });
    // Each lane's last row, at the last column (the registers hold column
    // n - 1 once the sweep is done).
    SF_DEVICE_UNROLL
    for (int r = 0; r < kRows; ++r) SF_DEVICE_UNROLL
    for (int k = 0; k < 2; ++k)
      if (i0 + r == lengths[k] - 1) last_h[k] = lane_s16(Hm[r], k) + p.open;
  }
  out0 = lane_result<false>(m0, n, !fits, last_h[0], m0 - 1, n - 1, p);
  out1 = lane_result<false>(m1, n, !fits, last_h[1], m1 - 1, n - 1, p);
}

// ---- Host side: the target layout both kernels read ----

// Targets sorted longest first (stable), cut into groups of kSlotGroup slots
// whose letters are interleaved: codes[group_base + j * kSlotGroup + lane].
// Positions past a target's end hold kPadCode.
struct TargetLayout {
  std::vector<std::uint32_t> order;  // slot -> original index
  std::vector<std::uint32_t> slot_len;
  std::vector<std::uint64_t> slot_base;  // group_base + lane
  std::uint64_t interleaved = 0;         // bytes, a multiple of kSlotGroup
  std::vector<std::uint8_t> codes;       // filled by interleave_on_host only
};

// The layout without its letters: order, lengths and bases. Longest first,
// so the targets of one group (and one warp) have similar lengths: little
// padding, little divergence; ties keep input order. A counting sort by
// length where the longest target is below 2^20 letters (every protein
// set): it runs on the critical path of a search's first part, where
// sorting 64-bit keys (length complemented, index) took about 60 ms for the
// 1.1 M targets of a big search's part; the keys' sort otherwise.
inline TargetLayout plan_target_layout(std::span<const std::uint64_t> offsets) {
  TargetLayout l;
  const std::size_t count = offsets.empty() ? 0 : offsets.size() - 1;
  const auto length = [&](std::size_t k) {
    return static_cast<std::uint32_t>(offsets[k + 1] - offsets[k]);
  };
  std::uint32_t longest = 0;
  for (std::size_t k = 0; k < count; ++k) longest = std::max(longest, length(k));
  l.order.resize(count);
  l.slot_len.resize(count);
  l.slot_base.resize(count);
  if (longest < (std::uint32_t{1} << 20)) {
    // next[r]: the next slot of rank r = longest - length.
    std::vector<std::uint32_t> next(std::size_t{longest} + 1, 0);
    for (std::size_t k = 0; k < count; ++k) ++next[longest - length(k)];
    std::uint32_t slot = 0;
    for (std::uint32_t r = 0; r <= longest; ++r) {
      const std::uint32_t here = next[r];
      std::fill_n(l.slot_len.begin() + slot, here, longest - r);
      next[r] = slot;
      slot += here;
    }
    for (std::size_t k = 0; k < count; ++k)
      l.order[next[longest - length(k)]++] = static_cast<std::uint32_t>(k);
  } else {
    std::vector<std::uint64_t> keys(count);
    for (std::size_t k = 0; k < count; ++k) keys[k] = (std::uint64_t{~length(k)} << 32) | k;
    std::sort(keys.begin(), keys.end());
    for (std::size_t s = 0; s < count; ++s) {
      l.order[s] = static_cast<std::uint32_t>(keys[s]);
      l.slot_len[s] = ~static_cast<std::uint32_t>(keys[s] >> 32);
    }
  }
  for (std::size_t s = 0; s < count; ++s) {
    const std::size_t lane = s % kSlotGroup;
    if (lane == 0) l.interleaved += std::uint64_t{l.slot_len[s]} * kSlotGroup;
    l.slot_base[s] = l.interleaved - std::uint64_t{l.slot_len[s - lane]} * kSlotGroup + lane;
  }
  return l;
}

// The letters of `l` (planned from `offsets`) interleaved on the host: what
// the CPU emulation tests read; DeviceTargetSet does this on the device.
inline void interleave_on_host(TargetLayout& l, std::span<const std::uint8_t> codes,
                               std::span<const std::uint64_t> offsets) {
  l.codes.assign(l.interleaved, kPadCode);
  for (std::size_t s = 0; s < l.order.size(); ++s) {
    const std::uint8_t* src = codes.data() + offsets[l.order[s]];
    for (std::uint32_t j = 0; j < l.slot_len[s]; ++j)
      l.codes[l.slot_base[s] + std::uint64_t{j} * kSlotGroup] = src[j];
  }
}

inline TargetLayout build_target_layout(std::span<const std::uint8_t> codes,
                                        std::span<const std::uint64_t> offsets) {
  TargetLayout l = plan_target_layout(offsets);
  interleave_on_host(l, codes, offsets);
  return l;
}

// Threads per block of the 16-bit kernel: one target each.
inline constexpr std::uint32_t kBlockThreads = 128;

// A LanePlan on the device.
struct LanePlanView {
  const LaneChunk* chunks = nullptr;
  const std::uint32_t* begin = nullptr;  // pairs + 1 entries
  std::uint32_t pairs = 0;
};

// Edge cells per query pair of the 16-bit kernel: one per interleaved letter.
inline std::uint64_t edge_cells16(const TargetLayout& l) {
  return l.interleaved;
}

// One launch's scores (by_slot[q * slots + s], queries first .. first +
// count - 1) handed to keep(first + q, s, score), on the workers of `loop`
// (keep is called for distinct (q, s) at once: it must write distinct
// places). Pairs flagged kRerun are counted and their queries listed in
// `rerun` (each once, ascending); they are left for the 32-bit rerun.
template <class Keep>
std::uint64_t scatter16(std::span<const PairScore> by_slot, std::uint32_t first,
                        std::uint32_t count, std::size_t slots, std::vector<std::uint32_t>& rerun,
                        Keep&& keep, const HostLoop& loop = {}) {
  // Pieces of rows: one thread took 0.2 s per launch of the big-database
  // search (7 x 1.2 M scores) while the device idled.
  std::vector<std::atomic<std::uint64_t>> flagged(count);
  for_each_row_piece(loop, count, slots, std::size_t{1} << 16,
                     [&](std::size_t q, std::size_t begin, std::size_t end) {
                       std::uint64_t here = 0;
                       for (std::size_t s = begin; s < end; ++s) {
                         const PairScore& r = by_slot[q * slots + s];
                         if (r.score == kRerun)
                           ++here;
                         else
                           keep(first + static_cast<std::uint32_t>(q),
                                static_cast<std::uint32_t>(s), r);
                       }
                       if (here) flagged[q].fetch_add(here, std::memory_order_relaxed);
                     });
  std::uint64_t total = 0;
  for (std::uint32_t q = 0; q < count; ++q) {
    const std::uint64_t here = flagged[q].load(std::memory_order_relaxed);
    if (here) rerun.push_back(first + q);
    total += here;
  }
  return total;
}

}  // namespace seqfuse::gpu::search16

namespace seqfuse::gpu {
// The 16-bit kernel's launcher (score_db16.cu); `stream` is a gpuStream_t.
void launch_score_db16(bool local, const search16::Targets16& targets,
                       const search16::Queries16& queries, std::uint32_t count,
                       const search16::LanePlanView& lanes, const int* matrix, int alphabet,
                       const search16::Params16& params, search16::Edge16* edges, PairScore* out,
                       void* stream);
}  // namespace seqfuse::gpu
