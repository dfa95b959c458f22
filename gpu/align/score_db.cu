// Inter-sequence alignment scores: each thread aligns one query against one
// target (Gotoh, affine gaps, 32-bit scores, so no score can saturate). The
// query is swept kRows rows at a time with H and E of those rows in
// registers; the last row of a chunk (H, F) is passed to the next chunk
// through a per-target edge array in device memory. The DP is
// search32_dp.hpp's score_target, shared with the CPU emulation test
// (tests/unit/test_align_search32_emulated.cpp).
//
// DeviceTargetSet::score runs the 16-bit packed-lane kernel (score_db16.cu,
// two queries per thread) on most targets, the wavefront kernel on the
// longest ones beside it (score_db_long.cu, long_split) and this one on
// the queries of the pairs 16 bits cannot score exactly; without
// ScoreParams::narrow_lanes (or for scorings 16 bits cannot hold), this one
// alone.
#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include <algorithm>
#include <climits>
#include <numeric>
#include <utility>

#include "gpu/align/device_max_plus.cuh"
#include "gpu/align/score_db.hpp"
#include "gpu/align/search16_dp.hpp"
#include "gpu/align/search16_lanes.hpp"
#include "gpu/align/search32_dp.hpp"
#include "gpu/align/search_table.cuh"
#include "gpu/trace.hpp"

namespace seqfuse::gpu {
namespace {

// Tuning knob, overridable at build time so variants can be timed side by
// side (bench/results/align-gpu-notes.md): the blocks per multiprocessor the
// register budget must allow. The rows per chunk (SEQFUSE_SCORE_ROWS) are
// search32_dp.hpp's.
#ifndef SEQFUSE_SCORE_MIN_BLOCKS
#define SEQFUSE_SCORE_MIN_BLOCKS 3
#endif
constexpr int kThreads = 128;  // threads per block: one target each
using GapCosts = align::GapPenalties;

template <bool kLocal>
__global__ void __launch_bounds__(kThreads, SEQFUSE_SCORE_MIN_BLOCKS)
    score_db_kernel(TargetsView targets, QueryBatch queries, const int* __restrict__ matrix_in,
                    int alphabet, GapCosts gap, EdgeHF* __restrict__ edges,
                    PairScore* __restrict__ out) {
  // matrix[q * kMaxAlphabet + t]. The threads of a warp share the query row
  // and differ in the target letter, so their lookups spread over the banks
  // (or broadcast); the transposed layout put them all in one bank.
  // Row kMaxAlphabet is a sentinel for rows past the query's end: scores so
  // low that such a row never holds a cell better than the real rows above it.
  __shared__ int matrix[align::pairs::kTableSize];
  load_search_table(matrix, matrix_in, alphabet);

  const std::uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
  if (slot >= targets.slots) return;
  const std::uint32_t qi = queries.first + blockIdx.y;
  const std::uint8_t* query = queries.codes + queries.offsets[qi];
  const int m = static_cast<int>(queries.offsets[qi + 1] - queries.offsets[qi]);
  const int n = static_cast<int>(targets.length[slot]);
  const std::uint8_t* target = targets.codes + targets.base[slot];
  EdgeHF* edge = edges + blockIdx.y * targets.interleaved + targets.base[slot];
  out[blockIdx.y * targets.slots + slot] =
      search32::score_target<kLocal, DeviceMaxPlus>(query, m, target, n, edge, matrix, gap);
}

void launch_score_db(bool local, const TargetsView& targets, const QueryBatch& queries,
                     std::uint32_t query_count, const int* matrix, int alphabet, GapCosts gap,
                     EdgeHF* edges, PairScore* out, gpuStream_t stream) {
  const dim3 grid((targets.slots + kThreads - 1) / kThreads, query_count);
  if (local)
    score_db_kernel<true>
        <<<grid, kThreads, 0, stream>>>(targets, queries, matrix, alphabet, gap, edges, out);
  else
    score_db_kernel<false>
        <<<grid, kThreads, 0, stream>>>(targets, queries, matrix, alphabet, gap, edges, out);
  GPU_CHECK_LAUNCH();
}

template <class T>
DeviceBuffer upload(const T* data, std::size_t count, Stream& stream) {
  DeviceBuffer buffer(count * sizeof(T));
  if (count > 0) copy_to_device(buffer.data(), data, count * sizeof(T), stream);
  return buffer;
}

// Targets [first, first + gridDim.x) from `staging` (their letters back to
// back, starting at letter `staging_begin` of the whole set) to their
// interleaved slots: dest[k] + j * kSlotGroup. One block per target; the
// 32 targets of a group come from 32 blocks, so writes are strided, but
// this runs once per database at memory speed (the host loop it replaced
// took 8 s for 2 G residues).
__global__ void interleave_targets_kernel(const std::uint8_t* __restrict__ staging,
                                          std::uint64_t staging_begin,
                                          const std::uint64_t* __restrict__ offsets,
                                          const std::uint64_t* __restrict__ dest,
                                          std::uint32_t first, std::uint8_t* __restrict__ codes) {
  const std::uint32_t k = first + blockIdx.x;
  const std::uint64_t begin = offsets[k], length = offsets[k + 1] - begin;
  const std::uint8_t* src = staging + (begin - staging_begin);
  std::uint8_t* out = codes + dest[k];
  for (std::uint64_t j = threadIdx.x; j < length; j += blockDim.x) out[j * kSlotGroup] = src[j];
}

// Letters copied per staging step of the interleaving (or the longest target).
constexpr std::uint64_t kStagingBytes = std::uint64_t{256} << 20;

}  // namespace

DeviceTargetSet::DeviceTargetSet(std::span<const std::uint8_t> codes,
                                 std::span<const std::uint64_t> offsets, unsigned host_threads) {
  const std::size_t count = offsets.empty() ? 0 : offsets.size() - 1;
  lengths_.resize(count);
  for (std::size_t k = 0; k < count; ++k)
    lengths_[k] = static_cast<std::uint32_t>(offsets[k + 1] - offsets[k]);
  residues_ = count ? offsets[count] - offsets[0] : 0;

  // Longest first in groups of kSlotGroup interleaved slots (one layout for
  // both kernels; the 16-bit kernel takes one slot per thread).
  search16::TargetLayout layout = search16::plan_target_layout(offsets);
  trace("align search: target layout planned");
  interleaved_bytes_ = layout.interleaved;
  slot_len_ = upload(layout.slot_len.data(), layout.slot_len.size(), build_stream_);
  slot_base_ = upload(layout.slot_base.data(), layout.slot_base.size(), build_stream_);
  codes_ = DeviceBuffer(layout.interleaved);
  fill_device(codes_.data(), search16::kPadCode, layout.interleaved, build_stream_);
  trace("align search: slots up, letters' room made");
  interleave(codes, offsets, layout, host_threads);
  order_ = std::move(layout.order);
  build_stream_.synchronize();  // the host vectors die here
}

// The letters to the device in steps of kStagingBytes (whole targets), each
// scattered to its slots by interleave_targets_kernel. Through pinned
// staging blocks: the runtime's own staging of pageable memory (about
// 2 GB/s) made a 450 M-residue part's upload most of the 0.35 s the big
// search waited before its first launch (run 36f).
void DeviceTargetSet::interleave(std::span<const std::uint8_t> codes,
                                 std::span<const std::uint64_t> offsets,
                                 const search16::TargetLayout& layout, unsigned host_threads) {
  const std::size_t count = layout.order.size();
  if (count == 0 || layout.interleaved == 0) return;
  std::vector<std::uint64_t> dest(count);  // by target: its slot's base
  for (std::size_t s = 0; s < count; ++s) dest[layout.order[s]] = layout.slot_base[s];
  const DeviceBuffer d_offsets = upload(offsets.data(), count + 1, build_stream_);
  const DeviceBuffer d_dest = upload(dest.data(), count, build_stream_);
  std::uint64_t longest = 0;
  for (std::uint32_t len : layout.slot_len) longest = std::max<std::uint64_t>(longest, len);
  const std::uint64_t staging_bytes = std::max(kStagingBytes, longest);
  DeviceBuffer staging(std::min<std::uint64_t>(staging_bytes, offsets[count] - offsets[0]));
  trace("align search: interleaving's buffers made");
  for (std::size_t first = 0; first < count;) {
    // Targets [first, last): as many whole targets as the staging buffer holds.
    const auto end = std::upper_bound(offsets.begin() + static_cast<std::ptrdiff_t>(first) + 1,
                                      offsets.begin() + static_cast<std::ptrdiff_t>(count) + 1,
                                      offsets[first] + staging_bytes);
    const std::size_t last = static_cast<std::size_t>(end - offsets.begin()) - 1;
    const std::uint64_t bytes = offsets[last] - offsets[first];
    // In stream order: this copy waits for the previous step's kernel.
    if (bytes > 0)
      copy_from_pageable_host(staging.data(), codes.data() + offsets[first], bytes, build_stream_,
                              host_threads, StagedFrom::prepared);
    interleave_targets_kernel<<<static_cast<unsigned>(last - first), 128, 0,
                                static_cast<gpuStream_t>(build_stream_.native())>>>(
        staging.as<const std::uint8_t>(), offsets[first], d_offsets.as<const std::uint64_t>(),
        d_dest.as<const std::uint64_t>(), static_cast<std::uint32_t>(first),
        codes_.as<std::uint8_t>());
    GPU_CHECK_LAUNCH();
    first = last;
  }
  trace("align search: letters queued up");
  build_stream_.synchronize();  // the staging buffer and pageable sources go away
  trace("align search: letters interleaved");
}

// The longest targets, which the wavefront kernel scores (one warp per pair,
// score_db_long.cu) beside the 16-bit kernel on the rest. There one thread
// sweeps a whole pair (two, in its two lanes), so a launch lasts at least as
// long as its longest pair, and the longest pairs of a database with a long
// tail (mmseqs2-examples: 8,081 residues against a mean of 453) set the time
// while the other multiprocessors idle (ncu, H100: active 30 % of the
// launch). The long slots: longer than 4x the mean, at most 1 % of the
// slots, rounded up to whole pairs of groups (so the 16-bit part starts on a
// group and a thread's two slots share it).
DeviceTargetSet::LongSplit DeviceTargetSet::long_split(std::uint32_t factor) const {
  const std::size_t count = size();
  if (count == 0 || factor == 0) return {};
  const std::uint64_t limit = std::uint64_t{factor} * residues_ / count;
  const std::size_t cap = count / 100;
  std::size_t n = 0;
  while (n < cap && lengths_[order_[n]] > limit) ++n;  // slots are sorted longest first
  if (n == 0) return {};
  const std::size_t unit = 2 * kSlotGroup;
  n = std::min(count, (n + unit - 1) / unit * unit);
  LongSplit split{static_cast<std::uint32_t>(n), 0};
  // A group's interleaved size is its first (longest) slot's length.
  for (std::size_t g = 0; g < n; g += kSlotGroup)
    split.interleaved += std::uint64_t{lengths_[order_[g]]} * kSlotGroup;
  return split;
}

Status DeviceTargetSet::can_implement(const ScoreParams& params) {
  if (params.alphabet_size <= 0 || params.alphabet_size > kMaxAlphabet) return Status::kInvalidSize;
  if (params.matrix.size() != static_cast<std::size_t>(params.alphabet_size) * params.alphabet_size)
    return Status::kInvalidSize;
  // Opening at least as costly as extending: the kernels' F recurrence
  // relies on it (ScoringScheme refuses the other case anyway).
  if (params.gap_extend < 0 || params.gap_open < params.gap_extend) return Status::kInvalidArgument;
  return Status::kSuccess;
}

// The checks, and the chosen queries and the matrix copied to the device,
// longest first: a launch's blocks start in order (query by query, longest
// targets first), so the longest work starts first and the short work fills
// the end. rows[k]: the out row of uploaded query k.
struct DeviceTargetSet::QueryUpload {
  DeviceBuffer matrix, codes, offsets;
  std::vector<std::uint32_t> rows;
  std::vector<std::uint32_t> lengths;  // of the uploaded queries, in upload order
};

Status DeviceTargetSet::upload_queries(const ScoreParams& params,
                                       std::span<const std::uint8_t> query_codes,
                                       std::span<const std::uint64_t> query_offsets,
                                       std::vector<std::uint32_t> rows, QueryUpload& upload_out) {
  if (const Status s = can_implement(params); s != Status::kSuccess) return s;
  for (std::uint8_t c : query_codes)
    if (c >= params.alphabet_size) return Status::kInvalidArgument;
  const auto length = [&](std::uint32_t q) { return query_offsets[q + 1] - query_offsets[q]; };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return length(a) > length(b); });
  std::vector<std::uint8_t> codes;
  std::vector<std::uint64_t> offsets{0};
  offsets.reserve(rows.size() + 1);
  upload_out.lengths.clear();
  for (std::uint32_t q : rows) {
    codes.insert(codes.end(), query_codes.begin() + static_cast<std::ptrdiff_t>(query_offsets[q]),
                 query_codes.begin() + static_cast<std::ptrdiff_t>(query_offsets[q + 1]));
    offsets.push_back(codes.size());
    upload_out.lengths.push_back(static_cast<std::uint32_t>(length(q)));
  }
  upload_out.matrix = upload(params.matrix.data(), params.matrix.size(), stream_);
  upload_out.codes = upload(codes.data(), codes.size(), stream_);
  upload_out.offsets = upload(offsets.data(), offsets.size(), stream_);
  upload_out.rows = std::move(rows);
  stream_.synchronize();  // the staging vectors die here
  return Status::kSuccess;
}

Status DeviceTargetSet::score(const ScoreParams& params, std::span<const std::uint8_t> query_codes,
                              std::span<const std::uint64_t> query_offsets,
                              std::vector<PairScore>& out, const HostLoop& loop) {
  const std::size_t queries = query_offsets.empty() ? 0 : query_offsets.size() - 1;
  std::vector<std::uint32_t> all(queries);
  std::iota(all.begin(), all.end(), 0u);
  QueryUpload uploaded;
  if (const Status s = upload_queries(params, query_codes, query_offsets, std::move(all), uploaded);
      s != Status::kSuccess)
    return s;
  stats_ = ScoreStats{};
  stats_.pairs = queries * size();
  if (queries == 0 || size() == 0) {
    out.resize(0);
    return Status::kSuccess;
  }

  if (!params.narrow_lanes || !search16::params_fit(search16::make_params16(params))) {
    score_wide(params, uploaded, queries, out, loop);
    return Status::kSuccess;
  }
  std::vector<std::uint32_t> rerun;
  score_narrow(params, uploaded, queries, out, rerun, loop);
  if (rerun.empty()) return Status::kSuccess;

  // The queries of flagged pairs, whole rows at 32 bits: flagged pairs are
  // rare (local scores near 32,767, global pairs past the a-priori bound),
  // and a row reuses the unchanged 32-bit launch path.
  QueryUpload subset;
  stats_.rerun_queries = static_cast<std::uint32_t>(rerun.size());
  stats_.rerun_pairs = rerun.size() * size();
  if (const Status s = upload_queries(params, query_codes, query_offsets, std::move(rerun), subset);
      s != Status::kSuccess)
    return s;
  score_wide(params, subset, queries, out, loop);
  return Status::kSuccess;
}

// Edge memory a launch may take: half of what is free, at most 16 GiB, so
// that the short work of many queries fills the time of the longest pairs.
std::uint64_t DeviceTargetSet::edge_budget() {
  return std::clamp<std::uint64_t>(free_device_memory() / 2, std::uint64_t{256} << 20,
                                   std::uint64_t{16} << 30);
}

// Queries a launch may take whatever its edges: at most 2^24 scores per
// launch on the host, and at most 65,535 (the kernels' grids have a query,
// or query pair, per blockIdx.y: many queries against a few targets).
std::uint32_t DeviceTargetSet::launch_query_limit() const {
  const std::uint64_t by_scores = (std::uint64_t{1} << 24) / std::max<std::size_t>(size(), 1);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(by_scores, 1, 65535));
}

// Queries per launch when each needs edge_bytes_per_query of edges.
std::uint32_t DeviceTargetSet::queries_per_launch(std::uint64_t edge_bytes_per_query) const {
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
      edge_budget() / std::max<std::uint64_t>(edge_bytes_per_query, 1), 1, launch_query_limit()));
}

// Slots [0, slots) of the resident targets (interleaved bytes [0,
// interleaved)), as the 32-bit kernels read them.
TargetsView DeviceTargetSet::targets_view(std::uint32_t slots, std::uint64_t interleaved) const {
  return TargetsView{codes_.as<std::uint8_t>(), slot_len_.as<std::uint32_t>(),
                     slot_base_.as<std::uint64_t>(), slots, interleaved};
}

// Uploaded queries first, first + 1, ... for blockIdx.y = 0, 1, ...
QueryBatch DeviceTargetSet::query_batch(const QueryUpload& queries, std::uint32_t first) {
  return QueryBatch{queries.codes.as<std::uint8_t>(), queries.offsets.as<std::uint64_t>(), first};
}

// by_slot[q * slots + s] (slots first_slot .. first_slot + slots - 1, uploaded
// queries first ..) to out[rows[query] * size() + order_[slot]].
void DeviceTargetSet::scatter(std::span<const PairScore> by_slot, const QueryUpload& queries,
                              std::uint32_t first, std::uint32_t count, std::uint32_t first_slot,
                              std::uint32_t slots, std::span<PairScore> out,
                              const HostLoop& loop) const {
  for_each_row_piece(loop, count, slots, std::size_t{1} << 16,
                     [&](std::size_t q, std::size_t begin, std::size_t end) {
                       const std::size_t row = queries.rows[first + q];
                       for (std::size_t s = begin; s < end; ++s)
                         out[row * size() + order_[first_slot + s]] = by_slot[q * slots + s];
                     });
}

void DeviceTargetSet::score_wide(const ScoreParams& params, const QueryUpload& uploaded,
                                 std::size_t out_rows, std::vector<PairScore>& out,
                                 const HostLoop& loop) {
  const std::size_t queries = uploaded.rows.size();
  const auto slots = static_cast<std::uint32_t>(size());
  const std::uint64_t edge_bytes_per_query = interleaved_bytes_ * sizeof(EdgeHF);
  const std::uint32_t per_launch = queries_per_launch(edge_bytes_per_query);
  DeviceBuffer edges = scratch_pool_.acquire(edge_bytes_per_query * per_launch);
  DeviceBuffer scores = scratch_pool_.acquire(sizeof(PairScore) * size() * per_launch);
  const auto launch = [&](std::size_t first) {
    const auto count =
        static_cast<std::uint32_t>(std::min<std::size_t>(per_launch, queries - first));
    timed(stream_.native(), [&] {
      launch_score_db(params.local, targets_view(slots, interleaved_bytes_),
                      query_batch(uploaded, static_cast<std::uint32_t>(first)), count,
                      uploaded.matrix.as<int>(), params.alphabet_size,
                      GapCosts{params.gap_open, params.gap_extend}, edges.as<EdgeHF>(),
                      scores.as<PairScore>(), static_cast<gpuStream_t>(stream_.native()));
    });
    return count;
  };
  std::uint32_t count = queries > 0 ? launch(0) : 0;
  // The host's buffers once the first launch runs (see score_narrow).
  std::vector<PairScore> by_slot(size() * per_launch);
  out.resize(out_rows * size());
  for (std::size_t first = 0; first < queries; first += per_launch) {
    copy_to_pageable_host(by_slot.data(), scores.data(), sizeof(PairScore) * slots * count, stream_,
                          loop.workers());
    trace("align search: " + std::to_string(count) + " queries scored on the device");
    // The next launch runs while this one's scores are put in place (its
    // scores were copied out of the buffer it overwrites).
    const std::uint32_t done = count;
    if (first + per_launch < queries) count = launch(first + per_launch);
    scatter(by_slot, uploaded, static_cast<std::uint32_t>(first), done, 0, slots, out, loop);
    trace("align search: scores in place");
  }
  scratch_pool_.release(std::move(edges));
  scratch_pool_.release(std::move(scores));
}

// The 16-bit kernel over the slots past the long ones (long_split) and, on a
// second stream at the same time, the wavefront kernel over the long slots.
void DeviceTargetSet::score_narrow(const ScoreParams& params, const QueryUpload& uploaded,
                                   std::size_t out_rows, std::vector<PairScore>& out,
                                   std::vector<std::uint32_t>& rerun, const HostLoop& loop) {
  const std::size_t queries = uploaded.rows.size();
  const search16::Params16 p16 = search16::make_params16(params);
  const LongSplit split = long_split(params.long_factor);
  const std::uint32_t long_slots = split.slots;
  const std::uint64_t long_interleaved = split.interleaved;
  const auto narrow_slots = static_cast<std::uint32_t>(size() - long_slots);
  const std::uint64_t narrow_bytes = interleaved_bytes_ - long_interleaved;
  // A pair of lanes (of queries) shares one edge cell per interleaved letter.
  const std::uint64_t pair_edge_bytes = narrow_bytes * sizeof(search16::Edge16);
  const std::uint64_t long_edge_bytes = long_interleaved * sizeof(EdgeHF);
  const search16::Launches16 plan = search16::plan_launches16(
      params.local, uploaded.lengths, narrow_slots,
      {launch_query_limit(), edge_budget(), pair_edge_bytes, long_edge_bytes});
  std::uint32_t most_pairs = 0, most_queries = 0;
  for (const search16::Launch16& l : plan.launches) {
    most_pairs = std::max(most_pairs, l.pairs);
    most_queries = std::max(most_queries, l.count);
  }
  DeviceBuffer edges = scratch_pool_.acquire(pair_edge_bytes * most_pairs);
  DeviceBuffer scores = scratch_pool_.acquire(sizeof(PairScore) * narrow_slots * most_queries);
  DeviceBuffer long_edges, long_scores;
  if (long_slots > 0) {
    long_edges = scratch_pool_.acquire(long_edge_bytes * most_queries);
    long_scores = scratch_pool_.acquire(sizeof(PairScore) * long_slots * most_queries);
  }
  const search16::Targets16 view{codes_.as<std::uint8_t>(),
                                 slot_len_.as<std::uint32_t>() + long_slots,
                                 slot_base_.as<std::uint64_t>() + long_slots,
                                 narrow_slots,
                                 narrow_bytes,
                                 long_interleaved};
  // Local alignment: every launch's lane plan in one upload.
  DeviceBuffer plan_chunks, plan_begin;
  if (params.local) {
    plan_chunks = upload(plan.lanes.chunks.data(), plan.lanes.chunks.size(), stream_);
    plan_begin = upload(plan.lanes.begin.data(), plan.lanes.begin.size(), stream_);
  }
  // upload_queries synchronized stream_: long_stream_ may start at once.
  const auto launch = [&](const search16::Launch16& l) {
    const QueryBatch batch = query_batch(uploaded, l.first);
    search16::LanePlanView lanes;
    if (params.local)
      lanes = {plan_chunks.as<search16::LaneChunk>(), plan_begin.as<std::uint32_t>() + l.begin_base,
               l.pairs};
    if (long_slots > 0)
      timed(long_stream_.native(), [&] {
        launch_score_db_long(params.local, targets_view(long_slots, long_interleaved), batch,
                             l.count, uploaded.matrix.as<int>(), params.alphabet_size,
                             params.gap_open, params.gap_extend, long_edges.as<EdgeHF>(),
                             long_scores.as<PairScore>(), long_stream_.native());
      });
    timed(stream_.native(), [&] {
      launch_score_db16(params.local, view, batch, l.count, lanes, uploaded.matrix.as<int>(),
                        params.alphabet_size, p16, edges.as<search16::Edge16>(),
                        scores.as<PairScore>(), stream_.native());
    });
  };
  std::vector<std::uint32_t> flagged_queries;
  if (!plan.launches.empty()) launch(plan.launches.front());
  // The host's buffers come into being while the first launch runs: fresh
  // pages fault in at about 1 GB/s on the GPU machine (run 23a), 0.12 s
  // per buffer for a part of the big search, which had passed before it.
  std::vector<PairScore> by_slot(std::size_t{narrow_slots} * most_queries);
  std::vector<PairScore> long_by_slot(std::size_t{long_slots} * most_queries);
  out.resize(out_rows * size());
  for (std::size_t k = 0; k < plan.launches.size(); ++k) {
    const std::uint32_t first = plan.launches[k].first, done = plan.launches[k].count;
    // Both kernels are queued before either copy: a copy to pageable memory
    // returns only when it is done, so copying the long slots' scores first
    // kept the 16-bit kernel from starting until the long kernel ended. The
    // 16-bit scores come through pinned blocks on the loop's threads (the
    // runtime's own pageable copy, about 2 GB/s, held the device idle for
    // 36 ms per launch of the big search).
    if (long_slots > 0)
      copy_to_host(long_by_slot.data(), long_scores.data(), sizeof(PairScore) * long_slots * done,
                   long_stream_);
    copy_to_pageable_host(by_slot.data(), scores.data(), sizeof(PairScore) * narrow_slots * done,
                          stream_, loop.workers());
    long_stream_.synchronize();
    trace("align search: " + std::to_string(done) + " queries scored on the device");
    // The next launch runs while this one's scores are put in place (its
    // scores were copied out of the buffers it overwrites).
    if (k + 1 < plan.launches.size()) launch(plan.launches[k + 1]);
    scatter(long_by_slot, uploaded, first, done, 0, long_slots, out, loop);
    stats_.narrow_pairs += std::uint64_t{done} * narrow_slots;
    flagged_queries.clear();
    stats_.flagged_pairs += search16::scatter16(
        std::span<const PairScore>(by_slot.data(), std::size_t{done} * narrow_slots), first, done,
        narrow_slots, flagged_queries,
        [&](std::uint32_t q, std::uint32_t slot, const PairScore& r) {
          out[std::size_t{uploaded.rows[q]} * size() + order_[long_slots + slot]] = r;
        },
        loop);
    for (std::uint32_t q : flagged_queries) rerun.push_back(uploaded.rows[q]);
    trace("align search: scores in place");
  }
  scratch_pool_.release(std::move(edges));
  scratch_pool_.release(std::move(scores));
  if (long_slots > 0) {
    scratch_pool_.release(std::move(long_edges));
    scratch_pool_.release(std::move(long_scores));
  }
}

}  // namespace seqfuse::gpu
