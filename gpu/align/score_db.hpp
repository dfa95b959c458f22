// Device engine for alignment scores of many queries against one resident
// target set (database search and all-against-all): one thread per target,
// the query swept in register-held row chunks. Plain C++ header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu/align/pair_score.hpp"
#include "gpu/host_loop.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"
#include "gpu/timeline.hpp"

namespace seqfuse::gpu {
namespace search16 {
struct TargetLayout;
}

inline constexpr int kMaxAlphabet = 32;
// Targets are stored interleaved in groups of this many, so the threads of a
// warp read neighbouring bytes at each target position.
inline constexpr int kSlotGroup = 32;

struct ScoreParams {
  bool local = true;  // Smith-Waterman when true, Needleman-Wunsch when false
  int gap_open = 11;  // a gap of length k costs gap_open + (k - 1) * gap_extend
  int gap_extend = 1;
  int alphabet_size = 0;    // <= kMaxAlphabet; codes are 0 .. alphabet_size-1
  std::vector<int> matrix;  // alphabet_size^2, matrix[q * alphabet_size + t]
  // score(): try two queries per thread in packed 16-bit lanes first (where
  // the scoring allows it), rerunning at 32 bits every query with a pair
  // that 16 bits cannot score exactly (and the longest targets at 32 bits
  // beside it). False: 32-bit only.
  bool narrow_lanes = true;
  // With narrow_lanes: targets longer than this many times the mean length
  // (at most 1 % of them) are scored one warp per pair beside the 16-bit
  // kernel (score_db_long.cu), so that no thread of it sweeps a very long
  // pair alone; 0: none are. 16: measured on an H100 (run 30,
  // bench/results/2026-11-26-nvidia-h100-run30-align.md), 4 was 8-10 %
  // slower on both the 2 G-residue and the 500 x 20,000 searches.
  std::uint32_t long_factor = 16;
};

// What the last score() call did.
struct ScoreStats {
  std::uint64_t pairs = 0;          // query x target pairs scored
  std::uint64_t narrow_pairs = 0;   // of these, run in the 16-bit kernel
  std::uint64_t flagged_pairs = 0;  // 16-bit pairs flagged (saturated or out of bounds)
  std::uint64_t rerun_pairs = 0;    // pairs run again at 32 bits (whole query rows)
  std::uint32_t rerun_queries = 0;  // queries with a flagged pair
};

// What one launch of the 32-bit kernels reads (device pointers): slots 0 ..
// slots - 1 of the interleaved target layout, and queries first .. of an
// upload, one per blockIdx.y.
struct TargetsView {
  const std::uint8_t* codes;    // interleaved, see DeviceTargetSet
  const std::uint32_t* length;  // per slot
  const std::uint64_t* base;    // per slot: interleaved start including lane
  std::uint32_t slots;
  std::uint64_t interleaved;  // elements per query in the edge array
};
struct QueryBatch {
  const std::uint8_t* codes;
  const std::uint64_t* offsets;  // offsets[q], offsets[q + 1] bound query q
  std::uint32_t first;           // query index of blockIdx.y == 0
};

// H and F of a pass's last row at one column (the long targets' kernel).
struct alignas(8) EdgeHF {
  std::int32_t h, f;
};

// The long targets' kernel (score_db_long.cu, wavefront_dp.hpp): one warp
// per pair; edges: count x targets.interleaved cells; `stream` is a
// gpuStream_t.
void launch_score_db_long(bool local, const TargetsView& targets, const QueryBatch& queries,
                          std::uint32_t count, const int* matrix, int alphabet, int open,
                          int extend, EdgeHF* edges, PairScore* out, void* stream);

class DeviceTargetSet {
 public:
  // Uploads the targets once. `codes` holds every target's letter codes back
  // to back; target k is codes[offsets[k], offsets[k+1]). Throws
  // OutOfDeviceMemory when the set does not fit. The letters go up through
  // pinned staging blocks (copy_from_pageable_host) that `host_threads`
  // threads fill.
  DeviceTargetSet(std::span<const std::uint8_t> codes, std::span<const std::uint64_t> offsets,
                  unsigned host_threads = 1);

  [[nodiscard]] std::size_t size() const noexcept { return lengths_.size(); }
  [[nodiscard]] std::uint64_t residues() const noexcept { return residues_; }

  // Which of the scoring parameters and queries this engine can take.
  [[nodiscard]] static Status can_implement(const ScoreParams& params);

  // Scores every query against every target: out[q * size() + k]. Queries
  // are letter codes like the targets. Blocks until the scores are on the host.
  // 16-bit lanes first (score_db16.cu), then the 32-bit kernel for the
  // queries of flagged pairs; last_stats() says how many. The scores are
  // put in place on the workers of `loop` while the next launch runs.
  // `out` is resized to queries x size() once the first launch runs (what
  // it held stays where the size already fits): the fresh pages of a large
  // buffer fault in at about 1 GB/s on the GPU machine (run 23a), 0.12 s
  // for the 500 x 20,000 search, and that now passes beside the kernel.
  [[nodiscard]] Status score(const ScoreParams& params, std::span<const std::uint8_t> query_codes,
                             std::span<const std::uint64_t> query_offsets,
                             std::vector<PairScore>& out, const HostLoop& loop = {});

  [[nodiscard]] const ScoreStats& last_stats() const noexcept { return stats_; }

  // score() times its kernels on `timeline` from now on (null: not timed).
  // The timeline outlives the set's score() calls.
  void time_kernels_on(DeviceTimeline* timeline) noexcept { timeline_ = timeline; }

 private:
  // Queues `launch`'s work on `stream` (a gpuStream_t), as one span of the
  // timeline if there is one.
  template <class Launch>
  void timed(void* stream, const Launch& launch) {
    const std::size_t span = timeline_ ? timeline_->begin(stream) : 0;
    launch();
    if (timeline_) timeline_->end(span, stream);
  }

  struct QueryUpload;
  // Queries `rows` (indices into the query set, which are also their out
  // rows) checked and uploaded, longest first.
  [[nodiscard]] Status upload_queries(const ScoreParams& params,
                                      std::span<const std::uint8_t> query_codes,
                                      std::span<const std::uint64_t> query_offsets,
                                      std::vector<std::uint32_t> rows, QueryUpload& upload_out);
  // Slots [0, slots) (interleaved bytes [0, interleaved)) go to the long
  // targets' kernel: longer than `factor` x the mean, at most 1 % of the
  // slots, rounded up to whole pairs of groups.
  struct LongSplit {
    std::uint32_t slots = 0;
    std::uint64_t interleaved = 0;
  };
  [[nodiscard]] LongSplit long_split(std::uint32_t factor) const;
  // Fills codes_ (allocated, padded) with the targets' letters in `layout`.
  void interleave(std::span<const std::uint8_t> codes, std::span<const std::uint64_t> offsets,
                  const search16::TargetLayout& layout, unsigned host_threads);
  [[nodiscard]] static std::uint64_t edge_budget();
  [[nodiscard]] std::uint32_t launch_query_limit() const;
  [[nodiscard]] std::uint32_t queries_per_launch(std::uint64_t edge_bytes_per_query) const;
  [[nodiscard]] TargetsView targets_view(std::uint32_t slots, std::uint64_t interleaved) const;
  [[nodiscard]] static QueryBatch query_batch(const QueryUpload& queries, std::uint32_t first);
  void scatter(std::span<const PairScore> by_slot, const QueryUpload& queries, std::uint32_t first,
               std::uint32_t count, std::uint32_t first_slot, std::uint32_t slots,
               std::span<PairScore> out, const HostLoop& loop) const;
  // The 32-bit kernel over every uploaded query and every slot. Both
  // kernels' paths resize `out` to out_rows x size() once their first
  // launch is queued.
  void score_wide(const ScoreParams& params, const QueryUpload& queries, std::size_t out_rows,
                  std::vector<PairScore>& out, const HostLoop& loop);
  // The 16-bit kernel over every uploaded query (the long slots at 32 bits
  // beside it); appends the queries with flagged pairs to `rerun` (their out
  // rows are incomplete).
  void score_narrow(const ScoreParams& params, const QueryUpload& queries, std::size_t out_rows,
                    std::vector<PairScore>& out, std::vector<std::uint32_t>& rerun,
                    const HostLoop& loop);

  std::vector<std::uint32_t> lengths_;   // by original target index
  std::vector<std::uint32_t> order_;     // slot -> original index, longest first
  std::uint64_t interleaved_bytes_ = 0;  // sum over groups of group_len * kSlotGroup
  ScoreStats stats_;
  DeviceTimeline* timeline_ = nullptr;
  std::uint64_t residues_ = 0;
  DeviceBuffer codes_;      // interleaved: codes[group_base + j * kSlotGroup + lane], see
                            // search16::build_target_layout
  DeviceBuffer slot_len_;   // per slot: length
  DeviceBuffer slot_base_;  // per slot: group_base (+ lane added on device)
  DevicePool scratch_pool_;
  // The upload and interleaving (constructor) at high priority: the next
  // part of a search is built while this device still scores the previous
  // one, and its blocks then run between that kernel's instead of after it.
  Stream build_stream_{StreamPriority::high};
  Stream stream_;
  Stream long_stream_;
};

}  // namespace seqfuse::gpu
