// Database search with two queries per thread in packed 16-bit lanes: the
// kernel and its launcher. The DP is search16_dp.hpp's score_lanes_local and _global (shared
// with the CPU emulation test); pairs it cannot score exactly come back as
// search16::kRerun and DeviceTargetSet::score reruns them with the 32-bit
// kernel (score_db.cu).
#include "gpu/vendor.cuh"  // first: HIP defines __host__ there

#include "gpu/align/search16_dp.hpp"
#include "gpu/primitives/dpx.cuh"

namespace seqfuse::gpu {
namespace {

// Blocks per multiprocessor the register budget must allow (a build flag, as
// SEQFUSE_SCORE_MIN_BLOCKS is for the 32-bit kernel).
// Without DPX (sm_80) the portable s16x2 arithmetic needs more registers:
// 168 of them and a 4-byte spill at 3 blocks; 2 blocks leave room.
#ifndef SEQFUSE_SCORE16_MIN_BLOCKS
#if defined(__CUDA_ARCH__) && !defined(SEQFUSE_HAVE_DPX)
#define SEQFUSE_SCORE16_MIN_BLOCKS 2
#else
#define SEQFUSE_SCORE16_MIN_BLOCKS 3
#endif
#endif
// The local kernel's budget: with DPX it fits 128 registers (4 blocks)
// without spilling, and the extra warps hide its chains' latency (run 36).
#ifndef SEQFUSE_SCORE16_LOCAL_MIN_BLOCKS
#if defined(__CUDA_ARCH__) && !defined(SEQFUSE_HAVE_DPX)
#define SEQFUSE_SCORE16_LOCAL_MIN_BLOCKS 2
#else
#define SEQFUSE_SCORE16_LOCAL_MIN_BLOCKS 4
#endif
#endif
constexpr int kThreads = static_cast<int>(search16::kBlockThreads);

// The block's chunk profile, rebuilt per chunk by all threads together
// into one of two buffers. One barrier per chunk suffices: a thread writes
// buffer c % 2 for chunk c only after the barrier of chunk c - 1, which
// every thread passes only after finishing chunk c - 2, the buffer's last
// reader.
struct BlockProfile {
  std::uint32_t (*buffers)[search16::kProfileSize];
  const int* matrix;
  int alphabet;
  int open;
  int chunk = 0;

  // Rows i0 ... of query0 (m0 letters) and query1 (m1) in lanes 0 and 1.
  __device__ const std::uint32_t* build(const std::uint8_t* query0, int m0,
                                        const std::uint8_t* query1, int m1, int i0) {
    std::uint32_t* profile = buffers[chunk++ & 1];
    search16::fill_profile(profile, matrix, alphabet, query0, m0, query1, m1, i0, open,
                           static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    __syncthreads();
    return profile;
  }
};

// Global alignment: the block's query pair, chunk by chunk.
struct PairChunks {
  BlockProfile profile;
  const std::uint8_t* query0;
  int m0;
  const std::uint8_t* query1;
  int m1;
  __device__ const std::uint32_t* operator()(int i0) {
    return profile.build(query0, m0, query1, m1, i0);
  }
};

// Local alignment: the chunks of the block's lane plan.
struct LaneChunks {
  BlockProfile profile;
  search16::Queries16 queries;
  __device__ int length(int q) const {
    const std::uint32_t k = queries.first + static_cast<std::uint32_t>(q);
    return static_cast<int>(queries.offsets[k + 1] - queries.offsets[k]);
  }
  __device__ const std::uint32_t* operator()(const search16::LaneChunk& c) {
    const std::uint8_t* query[2] = {queries.codes, queries.codes};
    int rows[2] = {0, 0};  // the lane's rows from c.row on (0: idle)
    for (int k = 0; k < 2; ++k) {
      if (c.query[k] == search16::kIdleLane) continue;
      query[k] = queries.codes + queries.offsets[queries.first + c.query[k]] + c.row[k];
      rows[k] = length(c.query[k]) - c.row[k];
    }
    return profile.build(query[0], rows[0], query[1], rows[1], 0);
  }
};

template <bool kLocal>
__global__ void __launch_bounds__(kThreads, kLocal ? SEQFUSE_SCORE16_LOCAL_MIN_BLOCKS
                                                   : SEQFUSE_SCORE16_MIN_BLOCKS)
    score_db16_kernel(search16::Targets16 targets, search16::Queries16 queries, std::uint32_t count,
                      search16::LanePlanView lanes, const int* __restrict__ matrix, int alphabet,
                      search16::Params16 params, search16::Edge16* __restrict__ edges,
                      PairScore* __restrict__ out) {
  // 16-byte aligned for the profile's vector loads (alignas on the type:
  // HIP does not take it on a __shared__ variable).
  struct alignas(16) ProfileBuffers {
    std::uint32_t data[2][search16::kProfileSize];
  };
  __shared__ ProfileBuffers profile;
  // No early return: every thread takes part in the per-chunk barriers.
  // (Blocks ordered target-major instead, so that the longest targets of
  // every pair start first, measured no faster: run 30.)
  const std::uint32_t pair = blockIdx.y;
  const std::uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = slot < targets.slots ? static_cast<int>(targets.length[slot]) : 0;
  // Past the last slot (no letters, no edges): the group start, never read.
  const std::uint64_t base = slot < targets.slots ? targets.base[slot] : targets.base_offset;
  const std::uint8_t* target = targets.codes + base;
  search16::Edge16* edge =
      edges + std::uint64_t{pair} * targets.interleaved + (base - targets.base_offset);
  const BlockProfile builder{profile.data, matrix, alphabet, params.open};
  if constexpr (kLocal) {
    LaneChunks chunks{builder, queries};
    const std::uint32_t begin = lanes.begin[pair];
    search16::score_lanes_local(target, edge, n, lanes.chunks + begin,
                                static_cast<int>(lanes.begin[pair + 1] - begin), params, chunks,
                                [&](int y, const PairScore& r) {
                                  if (slot < targets.slots)
                                    out[std::uint64_t(y) * targets.slots + slot] = r;
                                });
  } else {
    const std::uint32_t y0 = 2 * pair, y1 = y0 + 1;  // the pair's queries in the launch
    const std::uint32_t q0 = queries.first + y0, q1 = queries.first + y1;
    const std::uint8_t* query0 = queries.codes + queries.offsets[q0];
    const int m0 = static_cast<int>(queries.offsets[q0 + 1] - queries.offsets[q0]);
    const std::uint8_t* query1 = y1 < count ? queries.codes + queries.offsets[q1] : query0;
    const int m1 = y1 < count ? static_cast<int>(queries.offsets[q1 + 1] - queries.offsets[q1]) : 0;
    PairChunks chunks{builder, query0, m0, query1, m1};
    PairScore r0, r1;
    search16::score_lanes_global(target, edge, m0, m1, n, params, chunks, r0, r1);
    if (slot < targets.slots) {
      out[std::uint64_t{y0} * targets.slots + slot] = r0;
      if (y1 < count) out[std::uint64_t{y1} * targets.slots + slot] = r1;
    }
  }
}

}  // namespace

// Launcher: queries first .. first + count - 1 against every slot, on
// `stream` (a gpuStream_t). Global alignment: in pairs (first, first + 1),
// ... (the last alone when count is odd), edges ceil(count / 2) x
// interleaved cells. Local: along `lanes` (a plan_lanes plan of the count
// queries on the device), edges lanes.pairs x interleaved cells. out: count
// x slots scores.
void launch_score_db16(bool local, const search16::Targets16& targets,
                       const search16::Queries16& queries, std::uint32_t count,
                       const search16::LanePlanView& lanes, const int* matrix, int alphabet,
                       const search16::Params16& params, search16::Edge16* edges, PairScore* out,
                       void* stream) {
  if (targets.slots == 0 || count == 0) return;
  const std::uint32_t blocks = (targets.slots + kThreads - 1) / kThreads;
  const auto s = static_cast<gpuStream_t>(stream);
  if (local) {
    if (lanes.pairs == 0) return;
    score_db16_kernel<true><<<dim3(blocks, lanes.pairs), kThreads, 0, s>>>(
        targets, queries, count, lanes, matrix, alphabet, params, edges, out);
  } else {
    score_db16_kernel<false><<<dim3(blocks, (count + 1) / 2), kThreads, 0, s>>>(
        targets, queries, count, lanes, matrix, alphabet, params, edges, out);
  }
  GPU_CHECK_LAUNCH();
}

}  // namespace seqfuse::gpu
