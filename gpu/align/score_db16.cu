// Database search with two queries per thread in packed 16-bit lanes: the
// kernel and its launcher. The DP is search16_dp.hpp's score_lanes (shared
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
constexpr int kThreads = 128;  // threads per block: one target each

// The block's query-pair profile, rebuilt per chunk by all threads together
// into one of two buffers. One barrier per chunk suffices: a thread writes
// buffer c % 2 for chunk c only after the barrier of chunk c - 1, which
// every thread passes only after finishing chunk c - 2, the buffer's last
// reader.
struct BlockProfile {
  std::uint32_t (*buffers)[search16::kProfileSize];
  const int* matrix;
  int alphabet;
  const std::uint8_t* query0;
  int m0;
  const std::uint8_t* query1;
  int m1;
  int open;
  int chunk = 0;

  SF_HOST_DEVICE const std::uint32_t* operator()(int i0) {
    std::uint32_t* profile = buffers[chunk++ & 1];
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    search16::fill_profile(profile, matrix, alphabet, query0, m0, query1, m1, i0, open,
                           static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    __syncthreads();
#endif
    return profile;
  }
};

template <bool kLocal>
__global__ void __launch_bounds__(kThreads, kLocal ? SEQFUSE_SCORE16_LOCAL_MIN_BLOCKS
                                                  : SEQFUSE_SCORE16_MIN_BLOCKS)
    score_db16_kernel(search16::Targets16 targets, search16::Queries16 queries, std::uint32_t count,
                      const int* __restrict__ matrix, int alphabet, search16::Params16 params,
                      search16::Edge16* __restrict__ edges, PairScore* __restrict__ out) {
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
  const std::uint32_t y0 = 2 * pair, y1 = y0 + 1;  // the pair's queries in the launch
  const std::uint32_t q0 = queries.first + y0, q1 = queries.first + y1;
  const std::uint8_t* query0 = queries.codes + queries.offsets[q0];
  const int m0 = static_cast<int>(queries.offsets[q0 + 1] - queries.offsets[q0]);
  const std::uint8_t* query1 = y1 < count ? queries.codes + queries.offsets[q1] : query0;
  const int m1 = y1 < count ? static_cast<int>(queries.offsets[q1 + 1] - queries.offsets[q1]) : 0;
  const int n = slot < targets.slots ? static_cast<int>(targets.length[slot]) : 0;
  // Past the last slot (no letters, no edges): the group start, never read.
  const std::uint64_t base = slot < targets.slots ? targets.base[slot] : targets.base_offset;
  BlockProfile chunks{profile.data, matrix, alphabet, query0, m0, query1, m1, params.open};
  PairScore r0, r1;
  search16::score_lanes<kLocal>(
      targets.codes + base,
      edges + std::uint64_t{pair} * targets.interleaved + (base - targets.base_offset), m0, m1, n,
      params, chunks, r0, r1);
  if (slot < targets.slots) {
    out[std::uint64_t{y0} * targets.slots + slot] = r0;
    if (y1 < count) out[std::uint64_t{y1} * targets.slots + slot] = r1;
  }
}

}  // namespace

// Launcher: queries first .. first + count - 1 against every slot, on
// `stream` (a gpuStream_t), in pairs (first, first + 1), ... (the last
// alone when count is odd). edges: ceil(count / 2) x interleaved cells;
// out: count x slots scores.
void launch_score_db16(bool local, const search16::Targets16& targets,
                       const search16::Queries16& queries, std::uint32_t count, const int* matrix,
                       int alphabet, const search16::Params16& params, search16::Edge16* edges,
                       PairScore* out, void* stream) {
  if (targets.slots == 0 || count == 0) return;
  const dim3 grid((targets.slots + kThreads - 1) / kThreads, (count + 1) / 2);
  const auto s = static_cast<gpuStream_t>(stream);
  if (local)
    score_db16_kernel<true>
        <<<grid, kThreads, 0, s>>>(targets, queries, count, matrix, alphabet, params, edges, out);
  else
    score_db16_kernel<false>
        <<<grid, kThreads, 0, s>>>(targets, queries, count, matrix, alphabet, params, edges, out);
  GPU_CHECK_LAUNCH();
}

}  // namespace seqfuse::gpu
