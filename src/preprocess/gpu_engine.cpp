// The GPU engine behind TrimEngine (gpu/preprocess/trim_chunk.hpp). Worker
// threads hand it chunks at once; each takes one of a few lanes (a stream,
// its device buffers and pinned staging memory), so one chunk's upload, the
// next one's kernels and a third one's download and host copies overlap.
// Statistics and counters stay on the device, one set per lane, until
// finish(); the adapter sequences cut off come back per chunk (the report
// lists them by sequence). Compiled only with a GPU backend.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/env_count.hpp"
#include "core/gpu_status.hpp"
#include "core/report.hpp"
#include "gpu/preprocess/duplication_estimate.hpp"
#include "gpu/preprocess/trim_chunk.hpp"
#include "gpu/runtime.hpp"
#include "preprocess/gpu_engine.hpp"
#include "preprocess/pipeline_params.hpp"

namespace seqfuse::preprocess {
namespace {

namespace kernel = gpu::preprocess;

static_assert(sizeof(FastqRecord) == sizeof(kernel::DeviceRecord) &&
                  offsetof(FastqRecord, header) == offsetof(kernel::DeviceRecord, header) &&
                  offsetof(FastqRecord, header_length) ==
                      offsetof(kernel::DeviceRecord, header_length) &&
                  offsetof(FastqRecord, plus) == offsetof(kernel::DeviceRecord, plus) &&
                  offsetof(FastqRecord, plus_length) ==
                      offsetof(kernel::DeviceRecord, plus_length) &&
                  offsetof(FastqRecord, seq) == offsetof(kernel::DeviceRecord, seq) &&
                  offsetof(FastqRecord, qual) == offsetof(kernel::DeviceRecord, qual) &&
                  offsetof(FastqRecord, length) == offsetof(kernel::DeviceRecord, length),
              "records go to the device as they are");

// Pairs (reads) per chunk: ~5 MB of text a side for 150 bp reads at 8192.
std::size_t gpu_chunk_records() {
  return env_count("SEQFUSE_TRIM_GPU_CHUNK", "a record count", std::uint64_t{1} << 24)
      .value_or(8192);
}
// Lanes (streams with their buffers): workers beyond them wait for one.
// With the reading thread the bound, 8 and 16 were no faster than 4 (run
// 27d); with mapped inputs 16 workers waited 3.3 thread-seconds for one of
// 4 lanes and 0.8 for one of 8 (run 31, 4 M pairs: loop 0.73 -> 0.63 s).
// With the duplication estimate on the device the workers wait for lanes
// again (2.4-2.7 thread-seconds with 8), but 12 lanes took the loop from
// 0.607 to 0.536 s on one machine (run 35d) and from 0.465 to 0.478 s on
// another (run 35e, medians of 5 each): 8 stay, with less pinned memory.
std::size_t gpu_lanes() {
  return env_count("SEQFUSE_TRIM_GPU_LANES", "a lane count", 64).value_or(8);
}

// A buffer that only grows (a quarter more than asked, to settle quickly).
// A new one is filled with 0xAB, so that a byte the kernels fail to write
// shows in the output (the [gpu] tests compare it with the CPU engine's).
void ensure(gpu::DeviceBuffer& buffer, std::size_t bytes, gpu::Stream& stream) {
  if (buffer.size() >= bytes) return;
  buffer = gpu::DeviceBuffer(bytes + bytes / 4 + 64);
  gpu::fill_device(buffer.data(), 0xAB, buffer.size(), stream);
}
void ensure(std::pmr::vector<char>& buffer, std::size_t bytes) {
  if (buffer.size() < bytes) buffer.resize(bytes + bytes / 4 + 64);
}

struct Lane {
  Lane()
      : stats(kernel::kStatsSlots * kernel::kStatsWords * sizeof(std::uint64_t)),
        counters(kernel::kCounterWords * sizeof(std::uint64_t)),
        cut_count(2 * sizeof(std::uint32_t)) {
    gpu::fill_device(stats.data(), 0, stats.size(), stream);
    gpu::fill_device(counters.data(), 0, counters.size(), stream);
  }
  gpu::Stream stream;
  gpu::DeviceBuffer text[2], records[2], rc2, result[2], out_length[2], out_offset[2], out[2];
  gpu::DeviceBuffer cuts, cut_bytes, scratch;
  gpu::DeviceBuffer sums;  // add_duplicate_sums
  gpu::DeviceBuffer stats, counters, cut_count;
  std::pmr::vector<char> staging{gpu::pinned_resource()};  // texts and records going up
  std::pmr::vector<char> back{gpu::pinned_resource()};     // outputs and cuts coming down
  bool busy = false;
  bool used = false;
};

class GpuTrimEngine final : public TrimEngine {
 public:
  GpuTrimEngine(const TrimPlan& plan, int device_index)
      : plan_(plan), host_(plan), cpu_(make_cpu_trim_engine(plan)), device_(device_index) {
    gpu::use_device(device_);  // the device was chosen on another thread
    // The pipeline's adapter and FASTA pointers, re-pointed at device copies.
    params_ = host_.params;
    gpu::Stream stream;
    const auto upload = [&](gpu::DeviceBuffer& to, const void* from, std::size_t bytes) {
      to = gpu::DeviceBuffer(std::max<std::size_t>(bytes, 1));
      if (bytes > 0) gpu::copy_to_device(to.data(), from, bytes, stream);
    };
    upload(adapters_[0], plan.adapter1.data(), plan.adapter1.size());
    upload(adapters_[1], plan.adapter2.data(), plan.adapter2.size());
    upload(fasta_bases_, host_.fasta_bases.data(), host_.fasta_bases.size());
    upload(fasta_offsets_, host_.fasta_offsets.data(), host_.fasta_offsets.size() * sizeof(int));
    stream.synchronize();
    params_.adapter[0] = adapters_[0].as<const char>();
    params_.adapter[1] = adapters_[1].as<const char>();
    params_.fasta_bases = fasta_bases_.as<const char>();
    params_.fasta_offsets = fasta_offsets_.as<const int>();
    lanes_.resize(gpu_lanes());
    for (auto& lane : lanes_) lane = std::make_unique<Lane>();
  }

  // With several GPU workers the engines are freed on the run's thread,
  // whose current device may be another's: the buffers and streams go with
  // this engine's device current (the members are destroyed after this).
  ~GpuTrimEngine() override {
    try {
      gpu::use_device(device_);
    } catch (...) {  // freeing then fails quietly, as it would anyway
    }
  }
  GpuTrimEngine(const GpuTrimEngine&) = delete;
  GpuTrimEngine& operator=(const GpuTrimEngine&) = delete;

  [[nodiscard]] std::string name() const override { return "gpu:" + std::to_string(device_); }

  void trim(ReadChunk& reads, ReadChunk* mates, ChunkOutput& out, TrimTally& tally) override {
    if (reads.size() == 0) return;
    // Reads longer than the device statistics take: this chunk on the host.
    if (longest(reads) > kernel::kDeviceMaxCycles ||
        (mates && longest(*mates) > kernel::kDeviceMaxCycles)) {
      if (duplication_ != nullptr) {  // its sums before any base is edited
        std::vector<std::uint64_t> sums;
        duplication_sums(*duplication_, reads, mates, sums);
        add_duplicate_sums(sums);
      }
      cpu_->trim(reads, mates, out, tally);
      return;
    }
    gpu::use_device(device_);
    const Stopwatch waiting;
    Lane& lane = acquire();
    add_phase(kWaitLane, waiting.seconds());
    try {
      run(lane, reads, mates, out, tally);
    } catch (...) {
      release(lane);
      throw;
    }
    release(lane);
  }

  bool take_duplication(Duplication& estimate) override {
    // SEQFUSE_TRIM_DUP_HOST leaves it to the host (a measuring knob).
    if (std::getenv("SEQFUSE_TRIM_DUP_HOST") != nullptr) return false;
    const Duplication::Tables t = estimate.tables();
    const std::size_t bytes = static_cast<std::size_t>((t.bit_mask + 1) / 8);
    gpu::use_device(device_);
    // The array (512 MiB at fastp's default accuracy) beside the lanes'
    // buffers, with room to spare; else the host keeps the estimate.
    if (t.primes.size() != kernel::kDuplicationPrimes || t.weights.size() != 256 ||
        bytes > gpu::free_device_memory() / 2)
      return false;
    gpu::Stream stream;
    dup_bits_ = gpu::DeviceBuffer(bytes);
    gpu::fill_device(dup_bits_.data(), 0, bytes, stream);
    dup_primes_ = gpu::DeviceBuffer(t.primes.size_bytes());
    gpu::copy_to_device(dup_primes_.data(), t.primes.data(), t.primes.size_bytes(), stream);
    dup_weights_ = gpu::DeviceBuffer(t.weights.size_bytes());
    gpu::copy_to_device(dup_weights_.data(), t.weights.data(), t.weights.size_bytes(), stream);
    dup_counts_ = gpu::DeviceBuffer(2 * sizeof(std::uint64_t));
    gpu::fill_device(dup_counts_.data(), 0, dup_counts_.size(), stream);
    stream.synchronize();  // the host tables may go before the engine does
    dup_table_.primes = dup_primes_.as<const unsigned long long>();
    dup_table_.weights = dup_weights_.as<const unsigned long long>();
    dup_table_.bits = dup_bits_.as<unsigned long long>();
    dup_table_.bit_mask = t.bit_mask;
    dup_table_.counts = dup_counts_.as<unsigned long long>();
    duplication_ = &estimate;
    return true;
  }

  void finish(TrimTally& tally) override {
    gpu::use_device(device_);
    trace("fastq-trim " + name() + ": workers' thread-seconds: waiting for a lane " +
          phase_seconds(kWaitLane) + ", staging and queueing " + phase_seconds(kStage) +
          ", waiting for the device " + phase_seconds(kDevice) + ", for the download " +
          phase_seconds(kDownload) + ", taking the output " + phase_seconds(kTake));
    std::vector<std::uint64_t> stats(kernel::kStatsSlots * kernel::kStatsWords);
    std::vector<std::uint64_t> counters(kernel::kCounterWords);
    for (auto& lane : lanes_) {
      if (!lane->used) continue;
      gpu::copy_to_host(stats.data(), lane->stats.data(), lane->stats.size(), lane->stream);
      gpu::copy_to_host(counters.data(), lane->counters.data(), lane->counters.size(),
                        lane->stream);
      lane->stream.synchronize();
      add_stats(stats, kernel::kBefore1, tally.before1);
      add_stats(stats, kernel::kAfter1, tally.after1);
      add_stats(stats, kernel::kBefore2, tally.before2);
      add_stats(stats, kernel::kAfter2, tally.after2);
      add_counters(counters, tally);
    }
    if (duplication_ != nullptr) {  // every lane's stream is done (above)
      std::uint64_t counts[2] = {0, 0};
      gpu::Stream stream;
      gpu::copy_to_host(counts, dup_counts_.data(), sizeof(counts), stream);
      stream.synchronize();
      duplication_->add({.reads = counts[0], .duplicates = counts[1]});
    }
  }

 private:
  // The bits of reads the device does not hash (a chunk the host trims).
  void add_duplicate_sums(std::span<const std::uint64_t> sums) {
    if (duplication_ == nullptr || sums.empty()) return;
    gpu::use_device(device_);
    Lane& lane = acquire();
    try {
      ensure(lane.staging, sums.size_bytes());
      std::memcpy(lane.staging.data(), sums.data(), sums.size_bytes());
      ensure(lane.sums, sums.size_bytes(), lane.stream);
      gpu::copy_to_device(lane.sums.data(), lane.staging.data(), sums.size_bytes(), lane.stream);
      require_gpu_success(kernel::estimate_duplicate_sums(lane.sums.as<const unsigned long long>(),
                                                          sums.size(), dup_table_, lane.stream),
                          "fastq-trim duplication estimate");
      lane.stream.synchronize();  // the staging memory is the next chunk's after this
    } catch (...) {
      release(lane);
      throw;
    }
    release(lane);
  }

  static int longest(const ReadChunk& chunk) {
    std::uint32_t n = 0;
    for (const FastqRecord& r : chunk.records) n = std::max(n, r.length);
    return static_cast<int>(std::min<std::uint32_t>(n, 1U << 30));
  }

  Lane& acquire() {
    std::unique_lock lock(mutex_);
    for (;;) {
      for (auto& lane : lanes_) {
        if (!lane->busy) {
          lane->busy = true;
          lane->used = true;
          return *lane;
        }
      }
      free_lane_.wait(lock);
    }
  }
  void release(Lane& lane) {
    {
      const std::lock_guard lock(mutex_);
      lane.busy = false;
    }
    free_lane_.notify_one();
  }

  void run(Lane& lane, ReadChunk& reads, ReadChunk* mates, ChunkOutput& out, TrimTally& tally) {
    Stopwatch phase;
    const auto next_phase = [&](Phase p) {
      add_phase(p, phase.seconds());
      phase = Stopwatch();
    };
    const std::size_t n = reads.size();
    const bool paired = mates != nullptr;
    const int sides = paired ? 2 : 1;
    ReadChunk* chunk[2] = {&reads, mates};
    kernel::TrimChunkBuffers b;
    b.records = n;
    b.paired = paired;
    b.interleaved = paired && plan_.interleaved_output;
    std::size_t text_total = 0, staged = 0;
    for (int side = 0; side < sides; ++side) {
      text_total += chunk[side]->text.size();
      staged += chunk[side]->text.size() + n * sizeof(FastqRecord);
    }
    // Up: the texts and records through pinned memory.
    ensure(lane.staging, staged);
    std::size_t at = 0;
    for (int side = 0; side < sides; ++side) {
      const ReadChunk& c = *chunk[side];
      const std::size_t text_bytes = c.text.size(), record_bytes = n * sizeof(FastqRecord);
      ensure(lane.text[side], text_bytes, lane.stream);
      ensure(lane.records[side], record_bytes, lane.stream);
      ensure(lane.result[side], n * sizeof(kernel::ReadResult), lane.stream);
      ensure(lane.out_length[side], (n + 1) * sizeof(std::uint32_t), lane.stream);
      ensure(lane.out_offset[side], (n + 1) * sizeof(std::uint32_t), lane.stream);
      std::memcpy(lane.staging.data() + at, c.text.data(), text_bytes);
      gpu::copy_to_device(lane.text[side].data(), lane.staging.data() + at, text_bytes,
                          lane.stream);
      at += text_bytes;
      std::memcpy(lane.staging.data() + at, c.records.data(), record_bytes);
      gpu::copy_to_device(lane.records[side].data(), lane.staging.data() + at, record_bytes,
                          lane.stream);
      at += record_bytes;
      b.text[side] = lane.text[side].as<char>();
      b.text_bytes[side] = text_bytes;
      b.record[side] = lane.records[side].as<const kernel::DeviceRecord>();
      b.result[side] = lane.result[side].as<kernel::ReadResult>();
      b.out_length[side] = lane.out_length[side].as<std::uint32_t>();
      b.out_offset[side] = lane.out_offset[side].as<std::uint32_t>();
    }
    b.out_capacity[0] = kernel::trim_output_capacity(reads.text.size(), n);
    if (b.interleaved) b.out_capacity[0] += kernel::trim_output_capacity(mates->text.size(), n);
    ensure(lane.out[0], b.out_capacity[0], lane.stream);
    b.out[0] = lane.out[0].as<char>();
    if (paired) {
      b.out_capacity[1] = kernel::trim_output_capacity(mates->text.size(), n);
      ensure(lane.out[1], b.out_capacity[1], lane.stream);
      b.out[1] = lane.out[1].as<char>();
      ensure(lane.rc2, mates->text.size(), lane.stream);
      b.rc2 = lane.rc2.as<char>();
    }
    b.cut_capacity = kernel::trim_cut_capacity(text_total, n, params_);
    ensure(lane.cuts, 2 * n * sizeof(kernel::AdapterCutEntry), lane.stream);
    ensure(lane.cut_bytes, b.cut_capacity, lane.stream);
    b.cuts = lane.cuts.as<kernel::AdapterCutEntry>();
    b.cut_count = lane.cut_count.as<std::uint32_t>();
    b.cut_bytes = lane.cut_bytes.as<char>();
    b.stats = lane.stats.as<unsigned long long>();
    b.counters = lane.counters.as<unsigned long long>();
    b.scratch = &lane.scratch;
    if (duplication_ != nullptr)  // the bases as read, before trim_chunk edits any
      require_gpu_success(kernel::estimate_duplicates(b, dup_table_, lane.stream),
                          "fastq-trim duplication estimate");
    require_gpu_success(kernel::trim_chunk(b, params_, lane.stream), "fastq-trim chunk");
    next_phase(kStage);

    // Down, first the sizes, then the bytes.
    std::uint32_t sizes[4] = {0, 0, 0, 0};  // out 1, out 2, cut entries, cut bytes
    ensure(lane.back, sizeof(sizes));
    auto* small = reinterpret_cast<std::uint32_t*>(lane.back.data());
    for (int side = 0; side < sides; ++side)
      gpu::copy_to_host(small + side, b.out_offset[side] + n, sizeof(std::uint32_t), lane.stream);
    gpu::copy_to_host(small + 2, b.cut_count, 2 * sizeof(std::uint32_t), lane.stream);
    lane.stream.synchronize();
    next_phase(kDevice);
    std::memcpy(sizes, small, sizeof(sizes));
    const std::size_t cut_entry_bytes = sizes[2] * sizeof(kernel::AdapterCutEntry);
    ensure(lane.back, std::size_t{sizes[0]} + sizes[1] + cut_entry_bytes + sizes[3]);
    char* down = lane.back.data();
    gpu::copy_to_host(down, b.out[0], sizes[0], lane.stream);
    if (paired) gpu::copy_to_host(down + sizes[0], b.out[1], sizes[1], lane.stream);
    char* entries = down + sizes[0] + sizes[1];
    gpu::copy_to_host(entries, b.cuts, cut_entry_bytes, lane.stream);
    gpu::copy_to_host(entries + cut_entry_bytes, b.cut_bytes, sizes[3], lane.stream);
    lane.stream.synchronize();
    next_phase(kDownload);

    out.out1.append(down, sizes[0]);
    // Interleaved output: read 2 went to out1 beside read 1 (sizes[1] is 0).
    if (paired && !b.interleaved) out.out2.append(down + sizes[0], sizes[1]);
    const char* cut_bytes = entries + cut_entry_bytes;
    for (std::uint32_t k = 0; k < sizes[2]; ++k) {
      kernel::AdapterCutEntry e;
      std::memcpy(&e, entries + k * sizeof(e), sizeof(e));
      AdapterCounts& seen = e.side == 0 ? tally.counts.adapters_read1 : tally.counts.adapters_read2;
      count_adapter(seen, std::string_view(cut_bytes + e.offset, e.length));
    }
    for (int side = 0; side < sides; ++side) {
      for (const FastqRecord& r : chunk[side]->records) {
        ++tally.reads_in;
        tally.bases_in += r.length;
      }
    }
    next_phase(kTake);
  }

  // Where the workers' time in trim() goes, for SEQFUSE_TRACE (issue 17).
  enum Phase { kWaitLane, kStage, kDevice, kDownload, kTake, kPhases };
  void add_phase(Phase p, double seconds) {
    phase_ns_[p].fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  }
  [[nodiscard]] std::string phase_seconds(Phase p) const {
    return std::to_string(static_cast<double>(phase_ns_[p].load()) * 1e-9);
  }

  static void add_stats(const std::vector<std::uint64_t>& all, int slot, ReadStats& to) {
    const std::uint64_t* s = all.data() + static_cast<std::size_t>(slot) * kernel::kStatsWords;
    to.add_counts(s[kernel::kStatsReadsWord], s[kernel::kStatsLengthWord], kernel::kDeviceMaxCycles,
                  s, s + kernel::kStatsKmerWord);
  }

  static void add_counters(const std::vector<std::uint64_t>& c, TrimTally& tally) {
    FilterCounts& counts = tally.counts;
    for (std::size_t i = 0; i < kFateSlots; ++i) counts.reads[i] += c[kernel::kFateWords + i];
    counts.adapter_trimmed_reads += c[kernel::kAdapterReadsWord];
    counts.adapter_trimmed_bases += c[kernel::kAdapterBasesWord];
    for (int base = 0; base < 4; ++base) {
      counts.polyx_reads[polyx_slot(base)] += c[kernel::kPolyXReadsWords + base];
      counts.polyx_bases[polyx_slot(base)] += c[kernel::kPolyXBasesWords + base];
    }
    counts.corrected_reads += c[kernel::kCorrectedReadsWord];
    for (std::size_t i = 0; i < counts.corrections.size(); ++i)
      counts.corrections[i] += c[kernel::kCorrectionWords + i];
    for (std::size_t i = 0; i < counts.insert_sizes.size(); ++i)
      counts.insert_sizes[i] += c[kernel::kInsertSizeWords + i];
    tally.reads_out += c[kernel::kReadsOutWord];
    tally.bases_out += c[kernel::kBasesOutWord];
  }

  const TrimPlan& plan_;
  HostPipeline host_;
  std::unique_ptr<TrimEngine> cpu_;  // chunks with reads too long for the device
  int device_;
  kernel::PipelineParams params_;
  gpu::DeviceBuffer adapters_[2], fasta_bases_, fasta_offsets_;
  // The duplication estimate, when taken (take_duplication).
  Duplication* duplication_ = nullptr;
  gpu::DeviceBuffer dup_bits_, dup_primes_, dup_weights_, dup_counts_;
  kernel::DuplicationTable dup_table_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::mutex mutex_;
  std::condition_variable free_lane_;
  std::atomic<std::uint64_t> phase_ns_[kPhases] = {};
};

}  // namespace

bool gpu_trim_engine_compiled() noexcept {
  return true;
}

std::size_t gpu_trim_chunk_records() {
  return gpu_chunk_records();
}

std::unique_ptr<TrimEngine> make_gpu_trim_engine(const TrimPlan& plan, int device_index) {
  return std::make_unique<GpuTrimEngine>(plan, device_index);
}

}  // namespace seqfuse::preprocess
