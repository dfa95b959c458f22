// fastq-trim's device work for one chunk (trim_chunk.hpp).
//
// Floors for 4 M x 150 bp pairs (2 x ~1.25 GB FASTQ in, about as much out),
// H100 PCIe 5 x16 at ~50 GB/s a direction, 16 host cores:
// - bytes: the chunk text goes up once (~2.5 GB, 4 M x 2 x ~310 bytes of
//   record fields plus 64 bytes of offsets a pair) and the kept records come
//   back (~2.4 GB): ~0.05 s each way over PCIe, overlapped across lanes. The
//   host side is the floor: reading 2.5 GB and writing 2.4 GB through the page
//   cache at ~3-5 GB/s a stream (`cat` copies both inputs to fresh files
//   in ~0.42 s on an H100 machine, run 31i); the mapped inputs' line ends
//   are found in ~0.36 s. With gzip, inflating 2 x ~0.4 GB
//   of gzip at ~0.3 GB/s per stream (one thread a file: ~1.5 s) and deflating
//   ~2.4 GB at level 4 over 16 threads at ~60 MB/s each (~2.5 s) are the
//   floors; the GPU's share is the same as plain.
// - ops: per pair ~2 x 150 bytes x (statistics ~10 ops, filters ~5,
//   adapter search ~2 x 30 window starts x early-exit compares, overlap
//   ~10 offsets x 7 words) ~ 20 k simple integer ops: 8 M reads x 10 k =
//   8e10 ops at ~3e13 int ops/s on H100: ~3 ms plus memory traffic of a few
//   passes over 5 GB at 3 TB/s (~10 ms). The device is never the bound;
//   host I/O and parsing are.
#include <cstdint>

// First: HIP's __forceinline__ and __popcll, which the shared headers use.
#include "gpu/vendor.cuh"

#include "gpu/preprocess/read_pipeline.hpp"
#include "gpu/preprocess/trim_chunk.hpp"
#include "gpu/primitives/base_code.hpp"
#include "gpu/primitives/device_sort.cuh"

namespace seqfuse::gpu::preprocess {
namespace {

constexpr int kThreads = 256;
constexpr int kSliceReads = kThreads;  // reads one statistics block takes
constexpr int kCycleRounds = kDeviceMaxCycles / kThreads;
static_assert(kDeviceMaxCycles % kThreads == 0, "cycles split evenly over the threads");

unsigned blocks_for(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

// A shared-memory counter whose ++ is atomic on the device, for
// correct_overlap's matrix (its template increments `++matrix[i]`).
struct AtomicCounter {
  unsigned value;
  SF_HOST_DEVICE AtomicCounter& operator++() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    atomicAdd(&value, 1u);
#else
    ++value;
#endif
    return *this;
  }
};

// fastp's Stats over the reads of one side (blockIdx.y picks the side; the
// slot is before or after filtering). A block takes kSliceReads reads; a
// thread owns one cycle per round (no shared atomics for the per-cycle
// counts) and one read for the 5-mers.
__global__ void accumulate_stats(const char* __restrict__ text0, const char* __restrict__ text1,
                                 const DeviceRecord* __restrict__ record0,
                                 const DeviceRecord* __restrict__ record1,
                                 const ReadResult* __restrict__ result0,
                                 const ReadResult* __restrict__ result1, std::size_t records,
                                 int slot0, int slot1, unsigned long long* __restrict__ stats) {
  __shared__ unsigned cycle_counts[8 * 4][kThreads];  // [class * 4 + k][thread]
  __shared__ unsigned kmer_counts[kStatsKmers];
  __shared__ std::uint32_t seq_at[kSliceReads], qual_at[kSliceReads];
  __shared__ int length_of[kSliceReads];
  __shared__ int longest;
  __shared__ unsigned long long reads, length_sum;
  const int side = static_cast<int>(blockIdx.y);
  const char* text = side == 0 ? text0 : text1;
  const DeviceRecord* record = side == 0 ? record0 : record1;
  const ReadResult* result = side == 0 ? result0 : result1;
  unsigned long long* out =
      stats + static_cast<std::size_t>(side == 0 ? slot0 : slot1) * kStatsWords;
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kSliceReads;

  for (int i = t; i < kStatsKmers; i += kThreads) kmer_counts[i] = 0;
  if (t == 0) {
    longest = 0;
    reads = 0;
    length_sum = 0;
  }
  __syncthreads();
  int length = -1;
  if (first + t < records) {
    const DeviceRecord& r = record[first + t];
    int begin = 0;
    length = static_cast<int>(r.length);
    if (result != nullptr) {
      begin = result[first + t].begin;
      length = result[first + t].length;
    }
    seq_at[t] = r.seq + static_cast<std::uint32_t>(begin);
    qual_at[t] = r.qual + static_cast<std::uint32_t>(begin);
    if (length >= 0) {
      atomicMax(&longest, length);
      atomicAdd(&reads, 1ull);
      atomicAdd(&length_sum, static_cast<unsigned long long>(length));
    }
  }
  length_of[t] = length;
  __syncthreads();
  // This thread's read: its 5-mers.
  if (length > 0) {
    const char* seq = text + seq_at[t];
    unsigned kmer = 0;
    int valid_run = 0;
    for (int i = 0; i < length; ++i) {
      const int code = fastp_base_code(seq[i]);
      if (code < 0) {
        valid_run = 0;
        continue;
      }
      kmer = ((kmer << 2) | static_cast<unsigned>(code)) & (kStatsKmers - 1);
      if (++valid_run >= 5) atomicAdd(&kmer_counts[kmer], 1u);
    }
  }
  // Per cycle: the slice's reads in turn, this thread's cycle of each.
  for (int round = 0; round < kCycleRounds && round * kThreads < longest; ++round) {
    const int cycle = round * kThreads + t;
    for (int k = 0; k < 8 * 4; ++k) cycle_counts[k][t] = 0;
    for (int i = 0; i < kSliceReads; ++i) {
      if (cycle >= length_of[i]) continue;
      const char base = text[seq_at[i] + cycle];
      const int q = static_cast<signed char>(text[qual_at[i] + cycle]);
      const int letter = (static_cast<unsigned char>(base) & 7) * 4;
      ++cycle_counts[letter][t];
      if (q >= '5') ++cycle_counts[letter + 1][t];
      if (q >= '?') ++cycle_counts[letter + 2][t];
      cycle_counts[letter + 3][t] += static_cast<unsigned>(q - 33);
    }
    if (cycle < longest) {
      unsigned long long* at = out + static_cast<std::size_t>(cycle) * 32;
      for (int letter = 0; letter < 8; ++letter) {
        if (cycle_counts[letter * 4][t] == 0) continue;
        for (int k = 0; k < 3; ++k)
          atomicAdd(at + letter * 4 + k,
                    static_cast<unsigned long long>(cycle_counts[letter * 4 + k][t]));
        // Quality sums are signed (two's complement, as the host keeps them).
        const auto sum = static_cast<long long>(static_cast<int>(cycle_counts[letter * 4 + 3][t]));
        atomicAdd(at + letter * 4 + 3, static_cast<unsigned long long>(sum));
      }
    }
  }
  __syncthreads();
  for (int i = t; i < kStatsKmers; i += kThreads)
    if (kmer_counts[i] != 0)
      atomicAdd(out + kStatsKmerWord + i, static_cast<unsigned long long>(kmer_counts[i]));
  if (t == 0 && reads != 0) {
    atomicAdd(out + kStatsReadsWord, reads);
    atomicAdd(out + kStatsLengthWord, length_sum);
  }
}

// One FASTQ record's bytes as fastp writes it.
__device__ std::uint32_t record_bytes(const DeviceRecord& r, int length) {
  return r.header_length + r.plus_length + 2 * static_cast<std::uint32_t>(length) + 4;
}

// Files one read's pipeline events in the block's counters and the cut list.
__device__ void file_events(const ReadEvents& ev, int side, const ReadSpan& span,
                            const PipelineParams& p, unsigned* counters,
                            const TrimChunkBuffers& b) {
  const AdapterCut& cut = ev.adapter;
  if (cut.kind != 0) {
    atomicAdd(&counters[kAdapterReadsWord], static_cast<unsigned>(cut.reads));
    atomicAdd(&counters[kAdapterBasesWord], static_cast<unsigned>(cut.length));
    if (cut.length > 0) {
      const unsigned entry = atomicAdd(&b.cut_count[0], 1u);
      const unsigned offset = atomicAdd(&b.cut_count[1], static_cast<unsigned>(cut.length));
      const char* from = cut.kind == 2 ? p.adapter[side] : span.seq + cut.from;
      for (int i = 0; i < cut.length; ++i) b.cut_bytes[offset + i] = from[i];
      b.cuts[entry] = AdapterCutEntry{static_cast<std::uint32_t>(side),
                                      static_cast<std::uint32_t>(cut.length), offset};
    }
  }
  if (ev.polyx_base >= 0) {
    atomicAdd(&counters[kPolyXReadsWords + ev.polyx_base], 1u);
    atomicAdd(&counters[kPolyXBasesWords + ev.polyx_base], static_cast<unsigned>(ev.polyx_trimmed));
  }
}

// One thread per read (pair): the shared pipeline, then what it counts and
// which records are written.
__global__ void trim_reads(TrimChunkBuffers b, PipelineParams p) {
  __shared__ unsigned counters[kCounterWords];
  for (int i = static_cast<int>(threadIdx.x); i < kCounterWords; i += kThreads) counters[i] = 0;
  __syncthreads();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < b.records) {
    const DeviceRecord& r1 = b.record[0][i];
    ReadSpan s1;
    s1.seq = b.text[0] + r1.seq;
    s1.qual = b.text[0] + r1.qual;
    s1.length = static_cast<int>(r1.length);
    if (!b.paired) {
      ReadEvents ev;
      trim_single_read(s1, p, ev);
      file_events(ev, 0, s1, p, counters, b);
      atomicAdd(&counters[kFateWords + ev.fate], 1u);
      const bool written = s1.kept && ev.fate == kFatePassed;
      b.result[0][i] = ReadResult{s1.begin, written ? s1.length : -1};
      b.out_length[0][i] = written ? record_bytes(r1, s1.length) : 0;
      if (written) {
        atomicAdd(&counters[kReadsOutWord], 1u);
        atomicAdd(&counters[kBasesOutWord], static_cast<unsigned>(s1.length));
      }
    } else {
      const DeviceRecord& r2 = b.record[1][i];
      ReadSpan s2;
      s2.seq = b.text[1] + r2.seq;
      s2.qual = b.text[1] + r2.qual;
      s2.length = static_cast<int>(r2.length);
      PairEvents ev;
      auto* matrix = reinterpret_cast<AtomicCounter*>(&counters[kCorrectionWords]);
      trim_read_pair(s1, s2, b.rc2 + r2.seq, p, ev, matrix);
      if (ev.insert_size >= 0) atomicAdd(&counters[kInsertSizeWords + ev.insert_size], 1u);
      if (ev.corrected > 0)
        atomicAdd(&counters[kCorrectedReadsWord], (ev.corrected1 && ev.corrected2) ? 2u : 1u);
      file_events(ev.read[0], 0, s1, p, counters, b);
      file_events(ev.read[1], 1, s2, p, counters, b);
      atomicAdd(&counters[kFateWords + ev.fate()], 2u);
      const bool written =
          s1.kept && ev.read[0].fate == kFatePassed && s2.kept && ev.read[1].fate == kFatePassed;
      b.result[0][i] = ReadResult{s1.begin, written ? s1.length : -1};
      b.result[1][i] = ReadResult{s2.begin, written ? s2.length : -1};
      const std::uint32_t bytes1 = written ? record_bytes(r1, s1.length) : 0;
      const std::uint32_t bytes2 = written ? record_bytes(r2, s2.length) : 0;
      b.out_length[0][i] = b.interleaved ? bytes1 + bytes2 : bytes1;
      b.out_length[1][i] = b.interleaved ? 0 : bytes2;
      if (written) {
        atomicAdd(&counters[kReadsOutWord], 2u);
        atomicAdd(&counters[kBasesOutWord], static_cast<unsigned>(s1.length + s2.length));
      }
    }
  }
  if (i == 0) {  // the scan's extra element: offset[records] is the total
    b.out_length[0][b.records] = 0;
    if (b.paired) b.out_length[1][b.records] = 0;
  }
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < kCounterWords; k += kThreads)
    if (counters[k] != 0) atomicAdd(&b.counters[k], static_cast<unsigned long long>(counters[k]));
}

__device__ void copy_lanes(char* to, const char* from, std::uint32_t n, int lane) {
  for (std::uint32_t j = static_cast<std::uint32_t>(lane); j < n; j += warp_size()) to[j] = from[j];
}

// Writes one record (header, bases, '+' line, qualities) at `to` with the
// lanes of a warp; returns its size.
__device__ std::uint32_t write_record(char* to, const char* text, const DeviceRecord& r,
                                      const ReadResult& kept, int lane) {
  const auto length = static_cast<std::uint32_t>(kept.length);
  const auto begin = static_cast<std::uint32_t>(kept.begin);
  char* at = to;
  copy_lanes(at, text + r.header, r.header_length, lane);
  at += r.header_length;
  if (lane == 0) at[0] = '\n';
  ++at;
  copy_lanes(at, text + r.seq + begin, length, lane);
  at += length;
  if (lane == 0) at[0] = '\n';
  ++at;
  copy_lanes(at, text + r.plus, r.plus_length, lane);
  at += r.plus_length;
  if (lane == 0) at[0] = '\n';
  ++at;
  copy_lanes(at, text + r.qual + begin, length, lane);
  at += length;
  if (lane == 0) at[0] = '\n';
  ++at;
  return static_cast<std::uint32_t>(at - to);
}

// A warp per record of one output (grid-stride, whatever the warp's
// width): the kept records at their scanned offsets.
__global__ void format_records(TrimChunkBuffers b, int side) {
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / warp_size();
  const int lane = static_cast<int>(threadIdx.x % warp_size());
  for (std::size_t i =
           (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / warp_size();
       i < b.records; i += warps) {
    if (b.out_length[side][i] == 0) continue;
    char* to = b.out[side] + b.out_offset[side][i];
    const std::uint32_t used =
        write_record(to, b.text[side], b.record[side][i], b.result[side][i], lane);
    if (side == 0 && b.interleaved)
      (void)write_record(to + used, b.text[1], b.record[1][i], b.result[1][i], lane);
  }
}

}  // namespace

std::size_t trim_output_capacity(std::size_t text_bytes, std::size_t records) {
  return text_bytes + 4 * records;
}

std::size_t trim_cut_capacity(std::size_t text_bytes, std::size_t records,
                              const PipelineParams& params) {
  const int longest = params.adapter_length[0] > params.adapter_length[1]
                          ? params.adapter_length[0]
                          : params.adapter_length[1];
  return text_bytes + 2 * records * static_cast<std::size_t>(longest);
}

Status trim_chunk(const TrimChunkBuffers& b, const PipelineParams& params, Stream& stream) {
  if (b.records == 0) return Status::kSuccess;
  const int sides = b.paired ? 2 : 1;
  for (int side = 0; side < sides; ++side) {
    if (b.text[side] == nullptr || b.record[side] == nullptr || b.result[side] == nullptr ||
        b.out_length[side] == nullptr || b.out_offset[side] == nullptr || b.out[side] == nullptr)
      return Status::kNullBuffer;
    if (b.text_bytes[side] > 0xffffffffu) return Status::kInvalidSize;
  }
  if (b.stats == nullptr || b.counters == nullptr || b.cuts == nullptr || b.cut_count == nullptr ||
      b.cut_bytes == nullptr || b.scratch == nullptr || (b.paired && b.rc2 == nullptr))
    return Status::kNullBuffer;
  std::size_t need0 = trim_output_capacity(b.text_bytes[0], b.records);
  if (b.interleaved) need0 += trim_output_capacity(b.text_bytes[1], b.records);
  if (b.out_capacity[0] < need0 ||
      (b.paired && b.out_capacity[1] < trim_output_capacity(b.text_bytes[1], b.records)))
    return Status::kInvalidSize;
  if (b.records > 0xffffffffu || params.unknown_insert < 0 ||
      params.unknown_insert + 1 > kReadsOutWord - kInsertSizeWords)
    return Status::kInvalidSize;
  if (b.cut_capacity < trim_cut_capacity(b.text_bytes[0] + b.text_bytes[1], b.records, params))
    return Status::kInvalidSize;
  auto s = static_cast<gpuStream_t>(stream.native());
  GPU_CHECK(gpuMemsetAsync(b.cut_count, 0, 2 * sizeof(std::uint32_t), s));
  const dim3 stats_grid(static_cast<unsigned>((b.records + kSliceReads - 1) / kSliceReads),
                        static_cast<unsigned>(sides));
  accumulate_stats<<<stats_grid, kThreads, 0, s>>>(b.text[0], b.text[1], b.record[0], b.record[1],
                                                   nullptr, nullptr, b.records, kBefore1, kBefore2,
                                                   b.stats);
  GPU_CHECK_LAUNCH();
  trim_reads<<<blocks_for(b.records), kThreads, 0, s>>>(b, params);
  GPU_CHECK_LAUNCH();
  accumulate_stats<<<stats_grid, kThreads, 0, s>>>(b.text[0], b.text[1], b.record[0], b.record[1],
                                                   b.result[0], b.result[1], b.records, kAfter1,
                                                   kAfter2, b.stats);
  GPU_CHECK_LAUNCH();
  // A warp per record at 32 lanes; 64-lane warps take two each (grid stride).
  constexpr std::size_t kRecordsPerBlock = kThreads / 32;
  for (int side = 0; side < sides; ++side) {
    exclusive_sum(b.out_length[side], b.out_offset[side], b.records + 1, *b.scratch, s);
    const auto blocks =
        static_cast<unsigned>((b.records + kRecordsPerBlock - 1) / kRecordsPerBlock);
    format_records<<<blocks, kThreads, 0, s>>>(b, side);
    GPU_CHECK_LAUNCH();
  }
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu::preprocess
