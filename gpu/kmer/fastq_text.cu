#include <cstdint>

#include "gpu/primitives/device_sort.cuh"
#include "gpu/vendor.cuh"
#include "gpu/kmer/fastq_text.hpp"

namespace seqfuse::gpu {
namespace {

constexpr std::size_t kTile = 64;  // bytes a thread scans for line ends
constexpr int kThreads = 256;
// Records are checked by a grid-stride loop, so the grid needs no host-side
// record count.
constexpr unsigned kRecordBlocks = 2048;

// Newlines in one 64-byte tile: eight 8-byte words, a zero-byte test on
// word ^ '\n' repeated (exact: no carries cross bytes).
__device__ unsigned newlines_in_word(std::uint64_t word) {
  constexpr std::uint64_t kNewlines = 0x0a0a0a0a0a0a0a0aULL, kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  const std::uint64_t x = word ^ kNewlines;
  const std::uint64_t zero_high_bits = ~(((x & kLow7) + kLow7) | x | kLow7);
  return __popcll(zero_high_bits);
}

__global__ void count_line_ends(const char* __restrict__ text, std::size_t n,
                                std::uint32_t* __restrict__ tile_counts, std::size_t tiles) {
  const std::size_t tile = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tile >= tiles) return;
  const std::size_t begin = tile * kTile;
  unsigned count = 0;
  if (begin + kTile <= n) {
    const auto* words = reinterpret_cast<const std::uint64_t*>(text + begin);
    for (int w = 0; w < static_cast<int>(kTile / 8); ++w) count += newlines_in_word(words[w]);
  } else {
    for (std::size_t i = begin; i < n; ++i) count += text[i] == '\n';
  }
  tile_counts[tile] = count;
}

__global__ void write_line_ends(const char* __restrict__ text, std::size_t n,
                                const std::uint32_t* __restrict__ tile_counts,
                                const std::uint32_t* __restrict__ tile_offsets, std::size_t tiles,
                                std::uint32_t* __restrict__ line_ends,
                                std::uint32_t* __restrict__ line_count,
                                const FastqTextTotals* __restrict__ totals,
                                unsigned long long* __restrict__ first_record) {
  const std::size_t tile = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tile >= tiles) return;
  if (tile == tiles - 1) {
    *line_count = tile_offsets[tile] + tile_counts[tile];
    *first_record = totals->records;  // before this chunk's records are added
  }
  if (tile_counts[tile] == 0) return;
  std::uint32_t out = tile_offsets[tile];
  const std::size_t end = tile * kTile + kTile < n ? tile * kTile + kTile : n;
  for (std::size_t i = tile * kTile; i < end; ++i)
    if (text[i] == '\n') line_ends[out++] = static_cast<std::uint32_t>(i);
}

__device__ void fill_n(char* text, std::size_t from, std::size_t to_inclusive) {
  for (std::size_t i = from; i <= to_inclusive; ++i) text[i] = 'N';
}

// One thread per record: check its four lines, then turn everything but the
// sequence letters into 'N'.
__global__ void check_and_mask_records(char* __restrict__ text,
                                       const std::uint32_t* __restrict__ line_ends,
                                       const std::uint32_t* __restrict__ line_count,
                                       const unsigned long long* __restrict__ chunk_first_record,
                                       FastqTextTotals* __restrict__ totals) {
  const std::uint32_t lines = *line_count;
  const unsigned long long first_record = *chunk_first_record;
  const std::uint32_t records = lines / 4;
  unsigned long long my_records = 0, my_bases = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       r <= records; r += stride) {
    if (r == records) {  // only a partial record can follow the last whole one
      if (lines % 4 != 0)
        atomicMin(&totals->first_bad, ((first_record + r) << 3) | kFastqIncomplete);
      continue;
    }
    std::size_t begin[4], newline[4], end[4];  // end: before '\r\n' or '\n'
    for (int j = 0; j < 4; ++j) {
      const std::size_t line = 4 * r + j;
      begin[j] = line == 0 ? 0 : line_ends[line - 1] + std::size_t{1};
      newline[j] = line_ends[line];
      end[j] = newline[j] > begin[j] && text[newline[j] - 1] == '\r' ? newline[j] - 1 : newline[j];
    }
    unsigned problem = 0;
    if (end[0] == begin[0] || text[begin[0]] != '@')
      problem = kFastqNoAt;
    else if (end[2] == begin[2] || text[begin[2]] != '+')
      problem = kFastqNoPlus;
    else if (end[3] - begin[3] != end[1] - begin[1])
      problem = kFastqQualityLength;
    if (problem != 0) atomicMin(&totals->first_bad, ((first_record + r) << 3) | problem);
    ++my_records;
    my_bases += end[1] - begin[1];
    fill_n(text, begin[0], newline[0]);
    if (end[1] < newline[1]) text[end[1]] = 'N';
    fill_n(text, newline[1], newline[3]);
  }
  if (my_records != 0) {
    atomicAdd(&totals->records, my_records);
    atomicAdd(&totals->bases, my_bases);
  }
}

unsigned blocks_for(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

}  // namespace

FastqTextSpace::FastqTextSpace(std::size_t capacity_)
    : capacity(capacity_),
      tile_counts((capacity_ / kTile + 1) * sizeof(std::uint32_t)),
      tile_offsets((capacity_ / kTile + 1) * sizeof(std::uint32_t)),
      // At most one line per two bytes ("x\n").
      line_ends((capacity_ / 2 + 1) * sizeof(std::uint32_t)),
      line_count(sizeof(std::uint32_t)),
      first_record(sizeof(unsigned long long)) {}

Status mask_fastq_text(char* text, std::size_t n, FastqTextSpace& space, FastqTextTotals* totals,
                       Stream& stream) {
  if (n == 0) return Status::kSuccess;
  if (text == nullptr || totals == nullptr) return Status::kNullBuffer;
  if (n > space.capacity || n > 0xffffffffu) return Status::kInvalidSize;
  auto s = static_cast<gpuStream_t>(stream.native());
  const std::size_t tiles = (n + kTile - 1) / kTile;
  auto* counts = space.tile_counts.as<std::uint32_t>();
  auto* offsets = space.tile_offsets.as<std::uint32_t>();
  count_line_ends<<<blocks_for(tiles), kThreads, 0, s>>>(text, n, counts, tiles);
  GPU_CHECK_LAUNCH();
  exclusive_sum(counts, offsets, tiles, space.scratch, s);
  write_line_ends<<<blocks_for(tiles), kThreads, 0, s>>>(
      text, n, counts, offsets, tiles, space.line_ends.as<std::uint32_t>(),
      space.line_count.as<std::uint32_t>(), totals, space.first_record.as<unsigned long long>());
  GPU_CHECK_LAUNCH();
  check_and_mask_records<<<kRecordBlocks, kThreads, 0, s>>>(
      text, space.line_ends.as<std::uint32_t>(), space.line_count.as<std::uint32_t>(),
      space.first_record.as<unsigned long long>(), totals);
  GPU_CHECK_LAUNCH();
  return Status::kSuccess;
}

}  // namespace seqfuse::gpu
