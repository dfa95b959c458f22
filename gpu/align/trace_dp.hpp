// Traceback of one pair, as SF_HOST_DEVICE code shared by the GPU traceback
// kernel (traceback.cu) and its CPU emulation in tests/unit, so CI checks the
// very arithmetic, tie-breaking and CIGAR walk the kernel runs.
//
// The fill computes what the scalar reference (reference_align,
// affine_cell_traced) does per cell: the same scores, direction bits and end
// cell, with the pairs score kernel's inner loop (pair_dp.hpp). Cells are
// visited in register-held chunks of kTraceRows query rows: a chunk sweeps
// every target column; the H and F of its last row at each column go to an
// edge strip the next chunk reads.
//
// Direction bits: a nibble per cell (DirectionBit), 8 cells (8 consecutive
// query rows of one column) per 32-bit word. Word (w, j) holds rows 8w ..
// 8w+7 of column j. Plain C++ otherwise: no vendor types, so src/ and tests
// include it.
#pragma once

#include <climits>
#include <cstdint>

#include "gpu/align/dp_cell.hpp"
#include "gpu/align/pair_dp.hpp"

namespace seqfuse::align::trace {

// Query rows per register chunk; a multiple of kCellsPerWord.
inline constexpr int kTraceRows = 16;
inline constexpr int kCellsPerWord = 8;  // 4-bit directions per 32-bit word
// The reference's "minus infinity": E and F before any gap; equal values give
// equal open-versus-extend bits.
inline constexpr int kNegInf = INT_MIN / 4;

// A cell's nibble in the direction grid. Each bit is one compare of values
// the fill has anyway (h >= match, h >= e, e >= its opening value, f >= its
// opening value): 4 compares per cell, where the reference's TraceBits need
// 5 and a choice chain. Read in the reference's order, they give its moves:
// H from the diagonal unless kNotDiagonal, else from E unless kNotE, else F.
// Local alignments end where H is 0 (the reference's floor): the walk finds
// those cells from the score it carries (trace_walk), so no bit says so.
enum DirectionBit : std::uint32_t {
  kNotDiagonal = 1,  // H != H(i-1, j-1) + substitution
  kNotE = 2,         // H != E
  kEExtends = 4,     // E continued E(i, j-1) rather than opening from H(i, j-1)
  kFExtends = 8,     // F continued F(i-1, j) rather than opening from H(i-1, j)
};

// CIGAR operations, packed as length << 2 | op in one 32-bit run.
enum TraceOp : std::uint32_t { kOpMatch = 0, kOpMismatch = 1, kOpInsert = 2, kOpDelete = 3 };
inline constexpr std::uint32_t kMaxRunLength = (1u << 30) - 1;

SF_HOST_DEVICE std::uint32_t pack_run(std::uint32_t op, std::uint32_t length) {
  return length << 2 | op;
}
SF_HOST_DEVICE std::uint32_t run_op(std::uint32_t run) {
  return run & 3u;
}
SF_HOST_DEVICE std::uint32_t run_length(std::uint32_t run) {
  return run >> 2;
}
inline constexpr char op_letter(std::uint32_t op) {
  return op == kOpMatch ? '=' : op == kOpMismatch ? 'X' : op == kOpInsert ? 'I' : 'D';
}

// Number of 32-bit direction words per column for `rows` query rows.
SF_HOST_DEVICE std::uint32_t word_rows(std::uint32_t rows) {
  return (rows + kCellsPerWord - 1) / kCellsPerWord;
}

// Where one pair's direction words live. Pairs of a group share one padded
// grid, interleaved: word (w, j) of lane `lane` is at
// words[((w * columns) + j) * stride + lane] (`words` points at lane's first
// word), so threads of a warp touch neighbouring words. stride 1: plain.
struct DirectionGrid {
  std::uint32_t* words;
  std::uint64_t stride;
  std::uint64_t columns;  // padded column count of the group (>= n)

  SF_HOST_DEVICE std::uint64_t at(std::uint64_t word_row, std::uint64_t j) const {
    return (word_row * columns + j) * stride;
  }
  SF_HOST_DEVICE void store(int word_row, int j, std::uint32_t word) const {
    words[at(static_cast<std::uint64_t>(word_row), static_cast<std::uint64_t>(j))] = word;
  }
  SF_HOST_DEVICE std::uint32_t nibble(int i, int j) const {
    const std::uint32_t word =
        words[at(static_cast<std::uint64_t>(i / kCellsPerWord), static_cast<std::uint64_t>(j))];
    return (word >> (4 * (i % kCellsPerWord))) & 15u;
  }
};

// H and F of a chunk's last row, per column, for the next chunk.
struct EdgeCell {
  int h;
  int f;
};
struct EdgeStrip {
  EdgeCell* cells;  // lane's first cell
  std::uint64_t stride;
  SF_HOST_DEVICE EdgeCell load(int j) const {
    return cells[static_cast<std::uint64_t>(j) * stride];
  }
  SF_HOST_DEVICE void store(int j, EdgeCell c) const {
    cells[static_cast<std::uint64_t>(j) * stride] = c;
  }
};

// H of the boundary cell `length` positions from the origin (row or column -1).
SF_HOST_DEVICE int boundary_score(bool local, int length, GapPenalties gaps) {
  return local ? 0 : -gap_cost(length, gaps);
}

struct FillEnd {
  int score;
  int query_end;
  int target_end;
};

// Fills the direction grid of a non-empty pair (m, n >= 1) and returns the
// score and end cell exactly as reference_align finds them. `table` is the
// pairs kernel's substitution table (pairs::kTableSize ints, table[q *
// kTableStride + t], sentinel row kSentinelRow for rows past the query's
// end; gpu::pair_table builds it). The edge strip needs n cells when
// m > kTraceRows (unused otherwise). MaxPlus: pairs::PortableMaxPlus on the
// host, gpu::DeviceMaxPlus (DPX on Hopper) in the kernel.
//
// The inner loop is pair_score's (pair_dp.hpp) plus the four direction bits
// (DirectionBit), each one compare: E extends exactly when E differs from its
// opening value (E = max(open, extend) is the opening one unless extending
// is strictly better), likewise F. Rows past the query's end read
// the sentinel row instead of a per-cell row test: nothing real reads them
// (F and the diagonal flow downwards) and their H stays below the best real
// cell (see pair_score), so only their grid words are left unwritten.
template <bool kLocal, class MaxPlus>
SF_HOST_DEVICE FillEnd trace_fill(const std::uint8_t* query, int m, const std::uint8_t* target,
                                  int n, const int* table, GapPenalties gaps, DirectionGrid grid,
                                  EdgeStrip edge) {
  using pairs::kSentinelRow;
  using pairs::kTableStride;
  constexpr int kWords = kTraceRows / kCellsPerWord;
  static_assert(kTraceRows % kCellsPerWord == 0, "a chunk holds whole direction words");
  const char* table_bytes = reinterpret_cast<const char*>(table);
  const int open = gaps.open;
  const int extend = gaps.extend;
  // Local: the first cell with the best score in column-major order (smallest
  // j, then smallest i); (0, 0) when nothing beats 0, as the reference keeps it.
  FillEnd end{0, 0, 0};
  int last_chunk = 0;
  int H[kTraceRows];
  for (int i0 = 0; i0 < m; i0 += kTraceRows) {
    last_chunk = i0;
    int q[kTraceRows], E[kTraceRows];
    SF_DEVICE_UNROLL
    for (int r = 0; r < kTraceRows; ++r) {
      // Byte offset of the row's table row, kept in a register (opaque: see
      // pair_score).
      q[r] = MaxPlus::opaque((i0 + r < m ? static_cast<int>(query[i0 + r]) : kSentinelRow) *
                             kTableStride * static_cast<int>(sizeof(int)));
      H[r] = boundary_score(kLocal, i0 + r + 1, gaps);  // H(i, -1)
      E[r] = kNegInf;
    }
    bool word_exists[kWords];
    SF_DEVICE_UNROLL
    for (int w = 0; w < kWords; ++w) word_exists[w] = i0 + w * kCellsPerWord < m;
    const bool from_edge = i0 > 0;
    const bool to_edge = i0 + kTraceRows < m;
    int diag_top = boundary_score(kLocal, i0, gaps);  // H(i0 - 1, -1)
    // The next edge cell and target letter are loaded a column ahead.
    EdgeCell above_next{0, kNegInf};
    if (from_edge) above_next = edge.load(0);
    int letter_next = target[0];
    for (int j = 0; j < n; ++j) {
      const char* column = table_bytes + letter_next * static_cast<int>(sizeof(int));
      if (j + 1 < n) letter_next = target[j + 1];
      // H and F of row i0 - 1 at column j: the boundary row, or the edge the
      // previous chunk left.
      int h_up = boundary_score(kLocal, j + 1, gaps);
      int f_up = kNegInf;
      if (from_edge) {
        h_up = above_next.h;
        f_up = above_next.f;
        if (j + 1 < n) above_next = edge.load(j + 1);
      }
      int diag = diag_top;  // H(i0 - 1, j - 1)
      diag_top = h_up;
      std::uint32_t word[kWords];
      int column_best = 0;
      SF_DEVICE_UNROLL
      for (int r = 0; r < kTraceRows; ++r) {
        const int f_open = h_up - open;
        const int f = MaxPlus::add_max(f_up, -extend, f_open);  // F(i, j)
        const int e_open = H[r] - open;
        const int e = MaxPlus::add_max(E[r], -extend, e_open);  // E(i, j)
        const int match = diag + *reinterpret_cast<const int*>(column + q[r]);
        const int h = kLocal ? MaxPlus::max3_relu(match, e, f) : MaxPlus::max3(match, e, f);
        const int shift = 4 * (r % kCellsPerWord);
        const std::uint32_t bits = (h != match ? std::uint32_t{kNotDiagonal} << shift : 0u) |
                                   (h != e ? std::uint32_t{kNotE} << shift : 0u) |
                                   (e != e_open ? std::uint32_t{kEExtends} << shift : 0u) |
                                   (f != f_open ? std::uint32_t{kFExtends} << shift : 0u);
        word[r / kCellsPerWord] = r % kCellsPerWord == 0 ? bits : word[r / kCellsPerWord] | bits;
        diag = H[r];
        H[r] = h;
        E[r] = e;
        h_up = h;
        f_up = f;
        if (kLocal) column_best = max_of(column_best, h);
      }
      SF_DEVICE_UNROLL
      for (int w = 0; w < kWords; ++w)
        if (word_exists[w]) grid.store(i0 / kCellsPerWord + w, j, word[w]);
      if (to_edge) edge.store(j, EdgeCell{h_up, f_up});
      // Columns come in order within a chunk, so a later chunk (larger i)
      // takes over an equal score only at a smaller j. column_best > 0 here,
      // so rows past the query's end never match it.
      if (kLocal && (column_best > end.score || (column_best == end.score && j < end.target_end))) {
        end.score = column_best;
        end.target_end = j;
        SF_DEVICE_UNROLL
        for (int r = kTraceRows - 1; r >= 0; --r)
          if (H[r] == column_best) end.query_end = i0 + r;
      }
    }
  }
  if (!kLocal) {
    end.query_end = m - 1;
    end.target_end = n - 1;
    SF_DEVICE_UNROLL
    for (int r = 0; r < kTraceRows; ++r)
      if (last_chunk + r == m - 1) end.score = H[r];
  }
  return end;
}

// Collects the ops of the walk (which come last column first) into runs.
// With `out` null it only counts; given the count of a first pass as
// `total`, it writes the runs into out[0, total) in forward order.
struct RunSink {
  std::uint32_t* out = nullptr;
  std::uint32_t total = 0;
  std::uint32_t op = 4;  // none yet
  std::uint32_t length = 0;
  std::uint32_t runs = 0;
  int matches = 0;
  int columns = 0;

  SF_HOST_DEVICE void push(std::uint32_t o) {
    ++columns;
    if (o == kOpMatch) ++matches;
    if (o == op && length < kMaxRunLength) {
      ++length;
      return;
    }
    flush();
    op = o;
    length = 1;
  }
  SF_HOST_DEVICE void flush() {
    if (length == 0) return;
    if (out != nullptr) out[total - 1 - runs] = pack_run(op, length);
    ++runs;
    length = 0;
  }
};

struct WalkBegin {
  int query_begin;
  int target_begin;
};

// reference_align's traceback from (i, j) of a non-empty pair, move for move.
// It carries the value of the cell it is in (the H, E or F the state names),
// from `score` at the end cell back: each move's value follows from the
// next one's (a diagonal subtracts the substitution, an E or F step adds
// the extend or open penalty back), so a local alignment stops exactly
// where the reference's floor bit would be, at the first H of 0. `table`
// is trace_fill's. Local alignments with score 0 have no columns: do not
// call it for them.
SF_HOST_DEVICE WalkBegin trace_walk(bool local, int i, int j, int score, const DirectionGrid& grid,
                                    const std::uint8_t* query, const std::uint8_t* target,
                                    const int* table, GapPenalties gaps, RunSink& sink) {
  enum { in_h, in_e, in_f } state = in_h;
  int value = score;
  while (i >= 0 && j >= 0) {
    const std::uint32_t bits = grid.nibble(i, j);
    if (state == in_h) {
      if (local && value == 0) break;
      if (!(bits & kNotDiagonal)) {
        sink.push(query[i] == target[j] ? kOpMatch : kOpMismatch);
        value -= table[query[i] * pairs::kTableStride + target[j]];
        --i;
        --j;
      } else {
        state = bits & kNotE ? in_f : in_e;
      }
    } else if (state == in_e) {
      sink.push(kOpDelete);
      const bool extends = (bits & kEExtends) != 0;
      value += extends ? gaps.extend : gaps.open;
      if (!extends) state = in_h;
      --j;
    } else {
      sink.push(kOpInsert);
      const bool extends = (bits & kFExtends) != 0;
      value += extends ? gaps.extend : gaps.open;
      if (!extends) state = in_h;
      --i;
    }
  }
  if (!local) {  // the rest runs along the boundary row or column
    for (; i >= 0; --i) sink.push(kOpInsert);
    for (; j >= 0; --j) sink.push(kOpDelete);
  }
  sink.flush();
  return WalkBegin{i + 1, j + 1};
}

// One traced pair as the device returns it; runs are in a shared buffer.
struct TracedPair {
  std::int32_t score = 0;
  std::int32_t query_end = -1;
  std::int32_t target_end = -1;
  std::int32_t query_begin = -1;
  std::int32_t target_begin = -1;
  std::int32_t matches = 0;
  std::int32_t columns = 0;
  std::uint32_t run_count = 0;
  std::uint64_t run_offset = 0;  // first run in the batch's run buffer
};

// A pair with an empty sequence, as reference_align reports it: global
// aligns the other sequence to a gap (I for the query, D for the target),
// local has no columns. Runs: at most one, written to out[0] when out is set.
SF_HOST_DEVICE TracedPair trace_empty(bool local, int m, int n, GapPenalties gaps,
                                      std::uint32_t* out) {
  TracedPair p;
  if (local) return p;
  p.score = -gap_cost(m + n, gaps);
  p.query_end = m - 1;
  p.target_end = n - 1;
  if (m + n == 0) return p;
  p.query_begin = 0;
  p.target_begin = 0;
  p.columns = m + n;
  p.run_count = 1;
  if (out != nullptr)
    *out = pack_run(m > 0 ? kOpInsert : kOpDelete, static_cast<std::uint32_t>(m + n));
  return p;
}

// One pair of a batch, as the planner (trace_plan.hpp) lays it out.
struct TraceJob {
  std::uint64_t query = 0;    // first code of the query in the query codes
  std::uint64_t target = 0;   // first code of the target in the target codes
  std::uint64_t words = 0;    // the lane's first direction word in the batch
  std::uint64_t edges = 0;    // the lane's first edge cell in the batch
  std::uint64_t columns = 0;  // padded columns of the pair's group
  std::int32_t m = 0;         // query length
  std::int32_t n = 0;         // target length
  std::uint32_t stride = 1;   // pairs interleaved in the group
  std::uint32_t out = 0;      // slot of the result in the batch
};

// What a batch's pairs read and write.
struct TraceBuffers {
  const std::uint8_t* query_codes;
  const std::uint8_t* target_codes;
  const int* table;  // pairs::kTableSize ints: see trace_fill
  GapPenalties gaps;
  std::uint32_t* words;
  EdgeCell* edges;
};

SF_HOST_DEVICE DirectionGrid job_grid(const TraceJob& job, const TraceBuffers& b) {
  return DirectionGrid{b.words + job.words, job.stride, job.columns};
}

// First pass over a pair: the fill and a counting walk. The result has
// everything but run_offset; its run_count runs are written by
// trace_job_write once the caller has reserved room for them.
template <bool kLocal, class MaxPlus>
SF_HOST_DEVICE TracedPair trace_job_fill(const TraceJob& job, const TraceBuffers& b) {
  constexpr bool local = kLocal;
  if (job.m == 0 || job.n == 0) return trace_empty(local, job.m, job.n, b.gaps, nullptr);
  const std::uint8_t* query = b.query_codes + job.query;
  const std::uint8_t* target = b.target_codes + job.target;
  const DirectionGrid grid = job_grid(job, b);
  const FillEnd end = trace_fill<kLocal, MaxPlus>(query, job.m, target, job.n, b.table, b.gaps,
                                                  grid, EdgeStrip{b.edges + job.edges, job.stride});
  TracedPair p;
  p.score = end.score;
  p.query_end = end.query_end;
  p.target_end = end.target_end;
  if (local && end.score == 0) return p;  // no columns, begin stays -1
  RunSink count;
  const WalkBegin begin = trace_walk(local, end.query_end, end.target_end, end.score, grid, query,
                                     target, b.table, b.gaps, count);
  p.query_begin = begin.query_begin;
  p.target_begin = begin.target_begin;
  p.matches = count.matches;
  p.columns = count.columns;
  p.run_count = count.runs;
  return p;
}

// Second pass: the same walk, writing p.run_count runs to out in forward order.
SF_HOST_DEVICE void trace_job_write(bool local, const TraceJob& job, const TraceBuffers& b,
                                    const TracedPair& p, std::uint32_t* out) {
  if (p.run_count == 0) return;
  if (job.m == 0 || job.n == 0) {
    (void)trace_empty(local, job.m, job.n, b.gaps, out);
    return;
  }
  RunSink sink;
  sink.out = out;
  sink.total = p.run_count;
  (void)trace_walk(local, p.query_end, p.target_end, p.score, job_grid(job, b),
                   b.query_codes + job.query, b.target_codes + job.target, b.table, b.gaps, sink);
}

}  // namespace seqfuse::align::trace
