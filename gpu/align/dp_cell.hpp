// One cell of the affine-gap (Gotoh) dynamic programme, shared by the GPU
// kernels, the CPU engine's scalar paths and the scalar reference, so a CPU-only
// CI run exercises the arithmetic the kernels use.
//
// Conventions (Parasail's): i indexes the query, j the target; a gap of length k
// costs gap_open + (k - 1) * gap_extend, both given as non-negative penalties.
//   H[i][j]  best score of an alignment ending at (i, j)
//   E[i][j]  ... ending with target residue j against a gap (CIGAR D), so E
//            runs along the target axis: it reads E and H of cell (i, j - 1)
//   F[i][j]  ... ending with query residue i against a gap (CIGAR I); it reads
//            F and H of cell (i - 1, j)
// Local alignment clamps H at 0 (floor = 0); global passes a floor below every
// reachable score.
#pragma once

#include <cstdint>

#include "gpu/primitives/host_device.hpp"

namespace seqfuse::align {

struct GapPenalties {
  int open = 11;   // cost of the first gap position
  int extend = 1;  // cost of each further position
};

struct AffineCell {
  int h;
  int e;
  int f;
};

SF_HOST_DEVICE int max_of(int a, int b) {
  return a > b ? a : b;
}

// Score of a gap of `length` positions (0 for no gap).
SF_HOST_DEVICE int gap_cost(int length, GapPenalties gaps) {
  return length <= 0 ? 0 : gaps.open + (length - 1) * gaps.extend;
}

SF_HOST_DEVICE AffineCell affine_cell(int h_diag, int substitution, int h_left, int e_left,
                                      int h_up, int f_up, GapPenalties gaps, int floor) {
  AffineCell cell;
  cell.e = max_of(h_left - gaps.open, e_left - gaps.extend);
  cell.f = max_of(h_up - gaps.open, f_up - gaps.extend);
  cell.h = max_of(max_of(h_diag + substitution, floor), max_of(cell.e, cell.f));
  return cell;
}

// Which move produced a cell, for traceback. One byte per cell.
enum TraceBits : std::uint8_t {
  kTraceFromDiagonal = 0,  // H came from H[i-1][j-1] + substitution
  kTraceFromE = 1,         // H came from E (gap in the query: D)
  kTraceFromF = 2,         // H came from F (gap in the target: I)
  kTraceFromFloor = 3,     // local only: H is the 0 floor, the alignment starts after
  kTraceHMask = 3,
  kTraceEExtends = 4,  // E continued E[i][j-1] rather than opening from H[i][j-1]
  kTraceFExtends = 8,  // F continued F[i-1][j] rather than opening from H[i-1][j]
};

// Same scores as affine_cell, plus the moves. Ties prefer the diagonal, then E,
// then F; a local cell whose best is 0 ends the alignment there (the shortest
// local alignment with the maximal score); a gap prefers opening to extending.
SF_HOST_DEVICE AffineCell affine_cell_traced(int h_diag, int substitution, int h_left, int e_left,
                                             int h_up, int f_up, GapPenalties gaps, int floor,
                                             bool local, std::uint8_t* trace) {
  AffineCell cell = affine_cell(h_diag, substitution, h_left, e_left, h_up, f_up, gaps, floor);
  std::uint8_t bits = 0;
  if (h_left - gaps.open < e_left - gaps.extend) bits |= kTraceEExtends;
  if (h_up - gaps.open < f_up - gaps.extend) bits |= kTraceFExtends;
  if (local && cell.h == floor) {
    bits |= kTraceFromFloor;
  } else if (cell.h == h_diag + substitution) {
    bits |= kTraceFromDiagonal;
  } else if (cell.h == cell.e) {
    bits |= kTraceFromE;
  } else {
    bits |= kTraceFromF;
  }
  *trace = bits;
  return cell;
}

}  // namespace seqfuse::align
