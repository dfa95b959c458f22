// The long targets' search kernel: one warp per (query, target) pair, the
// query split over the lanes in a wavefront (wavefront_dp.hpp says why and
// how). DeviceTargetSet::score runs it on the longest slots beside the
// 16-bit kernel.
#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include <climits>

#include "gpu/align/device_max_plus.cuh"
#include "gpu/align/score_db.hpp"
#include "gpu/align/search_table.cuh"
#include "gpu/align/wavefront_dp.hpp"

namespace seqfuse::gpu {
namespace {

using wavefront::kLaneRows;
using wavefront::kLanes;
using wavefront::kPassRows;

constexpr int kThreads = 128;  // four pairs per block (two per AMD wavefront)
constexpr int kPairsPerBlock = kThreads / kLanes;

template <bool kLocal>
__global__ void __launch_bounds__(kThreads)
    score_db_long_kernel(TargetsView targets, QueryBatch queries, const int* __restrict__ matrix_in,
                         int alphabet, int open, int extend, EdgeHF* __restrict__ edges,
                         PairScore* __restrict__ out) {
  __shared__ int table[align::pairs::kTableSize];
  load_search_table(table, matrix_in, alphabet);

  const int lane_id = static_cast<int>(threadIdx.x) % kLanes;
  const std::uint32_t slot = blockIdx.x * kPairsPerBlock + threadIdx.x / kLanes;
  if (slot >= targets.slots) return;  // the whole pair's lanes at once
  const std::uint32_t qi = queries.first + blockIdx.y;
  const std::uint8_t* query = queries.codes + queries.offsets[qi];
  const int m = static_cast<int>(queries.offsets[qi + 1] - queries.offsets[qi]);
  const int n = static_cast<int>(targets.length[slot]);
  const std::uint8_t* target = targets.codes + targets.base[slot];
  EdgeHF* edge = edges + blockIdx.y * targets.interleaved + targets.base[slot];
  const std::uint64_t row = std::uint64_t{blockIdx.y} * targets.slots;
  if (m == 0 || n == 0) {
    if (lane_id == 0) out[row + slot] = wavefront::empty_pair(kLocal, m, n, open, extend);
    return;
  }

  wavefront::Lane lane;
  for (int p0 = 0; p0 < m; p0 += kPassRows) {
    const int i0 = p0 + lane_id * kLaneRows;
    wavefront::begin_pass<kLocal, DeviceMaxPlus>(lane, query, m, i0, open, extend);
    const bool from_edge = p0 > 0;
    const bool to_edge = p0 + kPassRows < m;  // then every lane is active
    // Lane k sweeps column s - k at step s; the last active lane ends with
    // column n - 1.
    const int steps = n + wavefront::active_lanes(m, p0) - 1;
    // Lane 0 reads the letter and the edge one column ahead.
    int letter_next = target[0];
    EdgeHF edge_next = from_edge ? edge[0] : EdgeHF{0, wavefront::kNegInf};
    int letter = 0;
    for (int s = 0; s < steps; ++s) {
      // What the lane above finished at step s - 1: its last row and letter
      // of column (s - 1) - (k - 1) = s - k, this lane's column now.
      const int above_h = shuffle_up(lane.bottom_h, 1, kLanes);
      const int above_f = shuffle_up(lane.bottom_f, 1, kLanes);
      const int above_letter = shuffle_up(letter, 1, kLanes);
      int up_h = above_h, up_f = above_f;
      if (lane_id == 0) {
        letter = letter_next;
        up_h = from_edge ? edge_next.h : kLocal ? 0 : wavefront::minus_gap(s + 1, open, extend);
        up_f = from_edge ? edge_next.f : wavefront::kNegInf;
        if (s + 1 < n) {
          letter_next = target[static_cast<std::size_t>(s + 1) * kSlotGroup];
          if (from_edge) edge_next = edge[static_cast<std::size_t>(s + 1) * kSlotGroup];
        }
      } else {
        letter = above_letter;
      }
      const int j = s - lane_id;
      if (j >= 0 && j < n && i0 < m) {
        wavefront::sweep_column<kLocal, DeviceMaxPlus>(lane, j, letter, up_h, up_f, table, open,
                                                       extend, m, n);
        // The pass's last row, for the next pass (lane 0 read this column of
        // the edge at step j, before: no lane reads it again in this pass).
        if (to_edge && lane_id == kLanes - 1)
          edge[static_cast<std::size_t>(j) * kSlotGroup] = EdgeHF{lane.bottom_h, lane.bottom_f};
      }
    }
    warp_sync();  // the edge written by the last lane, then read by lane 0
  }

  PairScore result;
  if (kLocal) {
    int best = lane.best, best_i = lane.best_i, best_j = lane.best_j;
    for (int mask = kLanes / 2; mask > 0; mask /= 2) {
      // mask < kLanes: the exchange stays within the pair's lanes.
      const int other_best = warp_shuffle_xor(best, mask);
      const int other_i = warp_shuffle_xor(best_i, mask);
      const int other_j = warp_shuffle_xor(best_j, mask);
      if (wavefront::local_first(other_best, other_i, other_j, best, best_i, best_j)) {
        best = other_best;
        best_i = other_i;
        best_j = other_j;
      }
    }
    result = wavefront::finish_local(best, best_i, best_j);
  } else {
    // The lane holding row m - 1 has H(m - 1, n - 1).
    const int holder = ((m - 1) % kPassRows) / kLaneRows;
    int last_h = lane_id == holder ? lane.last_h : INT_MIN;
    for (int mask = kLanes / 2; mask > 0; mask /= 2)
      last_h = max(last_h, warp_shuffle_xor(last_h, mask));
    result.score = last_h;
    result.query_end = m - 1;
    result.target_end = n - 1;
  }
  if (lane_id == 0) out[row + slot] = result;
}

}  // namespace

void launch_score_db_long(bool local, const TargetsView& targets, const QueryBatch& queries,
                          std::uint32_t count, const int* matrix, int alphabet, int open,
                          int extend, EdgeHF* edges, PairScore* out, void* stream) {
  if (targets.slots == 0 || count == 0) return;
  const dim3 grid((targets.slots + kPairsPerBlock - 1) / kPairsPerBlock, count);
  const auto s = static_cast<gpuStream_t>(stream);
  if (local)
    score_db_long_kernel<true>
        <<<grid, kThreads, 0, s>>>(targets, queries, matrix, alphabet, open, extend, edges, out);
  else
    score_db_long_kernel<false>
        <<<grid, kThreads, 0, s>>>(targets, queries, matrix, alphabet, open, extend, edges, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace seqfuse::gpu
