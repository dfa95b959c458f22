// Alignment scores of many independent pairs: one thread per pair runs
// pair_dp.hpp's DP (32-bit arithmetic; 16-bit edge strip where provably
// exact). The host sorts and groups the pairs by length and packs their
// letters (score_pairs.hpp); each batch goes to the device in one copy and
// its scores come back in one copy. `--pairs` scores through it; the
// [gpu][pairs] tests (tests/gpu/test_gpu_align_pairs.cpp) check it.
#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <memory>

#include "gpu/primitives/dpx.cuh"
#include "gpu/trace.hpp"
#include "gpu/align/device_max_plus.cuh"
#include "gpu/align/score_pairs.hpp"

namespace seqfuse::gpu {
namespace {

using align::pairs::EdgeNarrow;
using align::pairs::EdgeWide;
using align::pairs::PairBatchView;
using align::pairs::PairEnd;
using align::pairs::PairGroup;
using align::pairs::PairLengths;

// Blocks per multiprocessor the register budget must allow (a build flag, as
// for score_db.cu): 128 threads x 3 blocks caps the kernel at 168 registers.
#ifndef SEQFUSE_PAIR_MIN_BLOCKS
#define SEQFUSE_PAIR_MIN_BLOCKS 3
#endif
constexpr int kThreads = 128;

template <bool kLocal, int kBits, class Edge>
__global__ void __launch_bounds__(kThreads, SEQFUSE_PAIR_MIN_BLOCKS)
    score_pairs_kernel(PairBatchView batch, Edge* __restrict__ edges,
                       const int* __restrict__ table_in, align::GapPenalties gaps,
                       PairEnd* __restrict__ out) {
  // Every thread of a block has its own query: the substitution table (not
  // a query profile) is what they can share.
  __shared__ int table[align::pairs::kTableSize];
  for (int k = threadIdx.x; k < align::pairs::kTableSize; k += blockDim.x) table[k] = table_in[k];
  __syncthreads();
  const std::uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
  if (slot >= batch.slots) return;
  out[slot] =
      align::pairs::pair_score<kLocal, kBits, Edge, DeviceMaxPlus>(batch, edges, slot, table, gaps);
}

template <bool kLocal, int kBits, class Edge>
void launch_typed(const PairBatchView& batch, void* edges, const int* table,
                  align::GapPenalties gaps, PairEnd* out, gpuStream_t stream) {
  const unsigned blocks = (batch.slots + kThreads - 1) / kThreads;
  score_pairs_kernel<kLocal, kBits, Edge>
      <<<blocks, kThreads, 0, stream>>>(batch, static_cast<Edge*>(edges), table, gaps, out);
}

template <bool kLocal>
void launch_mode(int bits, bool narrow, const PairBatchView& batch, void* edges, const int* table,
                 align::GapPenalties gaps, PairEnd* out, gpuStream_t stream) {
  if (bits == 4) {
    if (narrow)
      launch_typed<kLocal, 4, EdgeNarrow>(batch, edges, table, gaps, out, stream);
    else
      launch_typed<kLocal, 4, EdgeWide>(batch, edges, table, gaps, out, stream);
  } else {
    if (narrow)
      launch_typed<kLocal, 8, EdgeNarrow>(batch, edges, table, gaps, out, stream);
    else
      launch_typed<kLocal, 8, EdgeWide>(batch, edges, table, gaps, out, stream);
  }
}

// Launcher: one batch on `stream`.
void launch_score_pairs(bool local, int bits, bool narrow, const PairBatchView& batch, void* edges,
                        const int* table, align::GapPenalties gaps, PairEnd* out,
                        gpuStream_t stream) {
  if (batch.slots == 0) return;
  if (local)
    launch_mode<true>(bits, narrow, batch, edges, table, gaps, out, stream);
  else
    launch_mode<false>(bits, narrow, batch, edges, table, gaps, out, stream);
  GPU_CHECK_LAUNCH();
}

// Scratch per batch when the caller names no budget: half of what is free,
// at most 8 GiB (1 M pairs of 1,000 bp need about 1.3 GB with 16-bit edges).
std::uint64_t default_budget() {
  return std::clamp<std::uint64_t>(free_device_memory() / 2, std::uint64_t{64} << 20,
                                   std::uint64_t{8} << 30);
}

// The scalar reference's limit (reference.cpp, check_int_range): pairs it
// refuses would need more than 32-bit scores.
bool fits_int32(std::uint64_t m, std::uint64_t n, const ScoreParams& p) {
  const double gap_bound = 4.0 * p.gap_open + static_cast<double>(m + n + 1) * p.gap_extend;
  const double score_bound = 128.0 * static_cast<double>(std::min(m, n));
  const double longest = static_cast<double>(std::max(m, n));
  const double limit = INT_MAX / 8;
  return gap_bound <= limit && score_bound <= limit && longest <= limit;
}

// Groups of pairs one packing task takes (64 pairs each).
constexpr std::size_t kPackGroupsPerChunk = 64;

// Whether every code is below `alphabet`, checked on the loop's threads.
bool codes_below(std::span<const std::uint8_t> codes, int alphabet, const HostLoop& loop) {
  std::atomic<bool> ok{true};
  loop(codes.size(), std::size_t{1} << 22,
                  [&](unsigned, std::size_t begin, std::size_t end) {
                    bool chunk_ok = true;
                    for (std::size_t i = begin; i < end; ++i) chunk_ok &= codes[i] < alphabet;
                    if (!chunk_ok) ok.store(false, std::memory_order_relaxed);
                  });
  return ok.load();
}

constexpr std::size_t align16(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

// Device events around a batch's kernel.
class EventTimer {
 public:
  EventTimer() {
    GPU_CHECK(gpuEventCreate(&start_));
    GPU_CHECK(gpuEventCreate(&stop_));
  }
  ~EventTimer() {
    (void)gpuEventDestroy(start_);
    (void)gpuEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(gpuStream_t s) { GPU_CHECK(gpuEventRecord(start_, s)); }
  void stop(gpuStream_t s) { GPU_CHECK(gpuEventRecord(stop_, s)); }
  // After the stream has been synchronized.
  [[nodiscard]] double seconds() const {
    float ms = 0;
    GPU_CHECK(gpuEventElapsedTime(&ms, start_, stop_));
    return ms / 1000.0;
  }

 private:
  gpuEvent_t start_{};
  gpuEvent_t stop_{};
};

}  // namespace

Status DevicePairScorer::can_implement(const ScoreParams& params) {
  return DeviceTargetSet::can_implement(params);
}

Status DevicePairScorer::score(const ScoreParams& params, std::span<const std::uint8_t> query_codes,
                               std::span<const std::uint64_t> query_offsets,
                               std::span<const std::uint8_t> target_codes,
                               std::span<const std::uint64_t> target_offsets,
                               std::span<PairScore> out, std::uint64_t budget_bytes,
                               bool force_wide_edges, const HostLoop& loop) {
  kernel_seconds_ = 0;
  batches_ = 0;
  if (const Status s = can_implement(params); s != Status::kSuccess) return s;
  const std::size_t count = query_offsets.empty() ? 0 : query_offsets.size() - 1;
  if (target_offsets.size() != query_offsets.size() || out.size() != count)
    return Status::kInvalidSize;
  if (!codes_below(query_codes, params.alphabet_size, loop) ||
      !codes_below(target_codes, params.alphabet_size, loop))
    return Status::kInvalidArgument;

  std::vector<PairInput> pairs(count);
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t q0 = query_offsets[k], q1 = query_offsets[k + 1];
    const std::uint64_t t0 = target_offsets[k], t1 = target_offsets[k + 1];
    if (q1 < q0 || q1 > query_codes.size() || t1 < t0 || t1 > target_codes.size())
      return Status::kInvalidSize;
    if (!fits_int32(q1 - q0, t1 - t0, params)) return Status::kInvalidSize;
    pairs[k] =
        PairInput{q0, t0, static_cast<std::uint32_t>(q1 - q0), static_cast<std::uint32_t>(t1 - t0)};
  }
  if (count == 0) return Status::kSuccess;

  const int bits = align::pairs::code_bits(params.alphabet_size);
  const int max_substitution = *std::max_element(params.matrix.begin(), params.matrix.end());
  const align::GapPenalties gaps{params.gap_open, params.gap_extend};
  const std::vector<PairBatch> plan = plan_pair_batches(
      pairs, gaps, max_substitution, budget_bytes ? budget_bytes : default_budget(), bits,
      force_wide_edges, loop);
  batches_ = plan.size();
  trace("align pairs: checked and planned");

  const std::vector<int> table = pair_table(params.matrix, params.alphabet_size);
  DeviceBuffer table_device(table.size() * sizeof(int));
  copy_to_device(table_device.data(), table.data(), table.size() * sizeof(int), stream_);
  const auto native = static_cast<gpuStream_t>(stream_.native());
  EventTimer timer;
  // Host staging of one upload, 8-byte aligned and left uninitialised: the
  // packers write every word, the rest is copied in.
  std::unique_ptr<std::uint64_t[]> staging;
  std::size_t staging_words = 0;
  std::vector<PairEnd> results;
  for (const PairBatch& batch : plan) {
    // One upload: letter words | group table | lengths, each 16-byte aligned.
    const std::size_t words_bytes = align16(batch.words * sizeof(std::uint32_t));
    const std::size_t groups_bytes = align16(batch.groups.size() * sizeof(PairGroup));
    const std::size_t lengths_bytes = align16(batch.lengths.size() * sizeof(PairLengths));
    const std::size_t upload_bytes = words_bytes + groups_bytes + lengths_bytes;
    if (upload_bytes / sizeof(std::uint64_t) > staging_words) {
      staging_words = upload_bytes / sizeof(std::uint64_t);
      staging.reset(new std::uint64_t[staging_words]);
    }
    auto* bytes = reinterpret_cast<unsigned char*>(staging.get());
    std::memset(bytes + batch.words * sizeof(std::uint32_t), 0,
                upload_bytes - batch.words * sizeof(std::uint32_t));
    const std::span words(reinterpret_cast<std::uint32_t*>(bytes), batch.words);
    // Packing is the host's main cost (1 M pairs of 150 bp: ~150 MB of
    // words); groups are disjoint word ranges, shared out over the threads.
    loop(batch.groups.size(), kPackGroupsPerChunk,
                    [&](unsigned, std::size_t begin, std::size_t end) {
                      pack_pair_groups(batch, pairs, query_codes.data(), target_codes.data(), bits,
                                       words, begin, end);
                    });
    trace("align pairs: batch packed");
    std::memcpy(bytes + words_bytes, batch.groups.data(), batch.groups.size() * sizeof(PairGroup));
    std::memcpy(bytes + words_bytes + groups_bytes, batch.lengths.data(),
                batch.lengths.size() * sizeof(PairLengths));

    DeviceBuffer input = scratch_pool_.acquire(upload_bytes);
    DeviceBuffer edges = scratch_pool_.acquire(std::max<std::uint64_t>(batch.edge_bytes(), 16));
    DeviceBuffer scores = scratch_pool_.acquire(batch.pairs.size() * sizeof(PairEnd));
    copy_to_device(input.data(), bytes, upload_bytes, stream_);
    auto* device_bytes = input.as<unsigned char>();
    const PairBatchView view{
        reinterpret_cast<const std::uint32_t*>(device_bytes),
        reinterpret_cast<const PairGroup*>(device_bytes + words_bytes),
        reinterpret_cast<const PairLengths*>(device_bytes + words_bytes + groups_bytes),
        static_cast<std::uint32_t>(batch.pairs.size())};
    timer.start(native);
    launch_score_pairs(params.local, bits, batch.narrow, view, edges.data(), table_device.as<int>(),
                       gaps, scores.as<PairEnd>(), native);
    timer.stop(native);
    results.resize(batch.pairs.size());
    copy_to_host(results.data(), scores.data(), results.size() * sizeof(PairEnd), stream_);
    stream_.synchronize();
    kernel_seconds_ += timer.seconds();
    trace("align pairs: batch scored");
    for (std::size_t slot = 0; slot < batch.pairs.size(); ++slot) {
      const std::uint32_t p = batch.pairs[slot];
      if (p == PairBatch::kPaddingSlot) continue;
      out[p] = PairScore{results[slot].score, results[slot].query_end, results[slot].target_end};
    }
    for (DeviceBuffer* b : {&input, &edges, &scores}) scratch_pool_.release(std::move(*b));
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu
