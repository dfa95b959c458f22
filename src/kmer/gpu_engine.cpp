#include "kmer/gpu_engine.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/gpu_status.hpp"
#include "core/halving_retry.hpp"
#include "core/report.hpp"
#include "gpu/kmer/count_histogram.hpp"
#include "gpu/kmer/count_kmers.hpp"
#include "gpu/kmer/fastq_text.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse::kmer {
namespace {

// K-mers are gathered on the device until the room is full, then sorted and
// counted there; only distinct k-mers and their counts come back, as one
// sorted run per round.
class GpuCountingEngine final : public CountingEngine {
 public:
  GpuCountingEngine(const EngineParams& params, RunSink& sink)
      : GpuCountingEngine(params, sink, allocate_room(params)) {}

  void add(const io::SequenceBatch& batch) override {
    gpu::use_device(device_index_);
    const std::size_t total = batch.total_bases();
    if (total == 0) return;
    upload(batch);
    gpu::KmerExtraction job = extraction();
    job.bases = bases_.as<const char>();
    job.offsets = offsets_.as<const std::uint64_t>();
    job.records = batch.size();
    held_ = read_counter();
    extract(job, total);
  }

  [[nodiscard]] bool takes_fastq_text() const noexcept override { return true; }

  // The chunk is masked on the device (fastq_text.hpp), then read as one
  // record. Chunks alternate between two device buffers: chunk i is copied
  // on copy_stream_ while the kernels of chunk i - 1 run on stream_, and the
  // host waits only for the copy of chunk i - 1 (the caller refills its
  // pinned buffer next), not for the kernels. The device's k-mer count is
  // read back only when the room might not hold the chunk's k-mers: at most
  // half its bytes, one per quality byte.
  void add_fastq_text(const char* text, std::size_t n) override {
    gpu::use_device(device_index_);
    if (n == 0) return;
    if (!text_space_ || text_space_->capacity < n) {
      stream_.synchronize();  // the kernels of earlier chunks are done with it
      text_space_.reset();
      text_space_.emplace(n);
    }
    if (!text_totals_) reset_text_totals();
    TextSlot& slot = text_slots_[next_slot_];
    TextSlot& previous = text_slots_[1 - next_slot_];
    next_slot_ = 1 - next_slot_;
    if (slot.text.size() < n) {
      slot.used.synchronize();
      slot.text = gpu::DeviceBuffer(n);
    }
    slot.used.make_wait(copy_stream_);  // chunk i - 2's kernels are done with slot.text
    gpu::copy_to_device(slot.text.data(), text, n, copy_stream_);
    slot.copied.record(copy_stream_);
    slot.copied.make_wait(stream_);

    require_gpu_success(gpu::mask_fastq_text(slot.text.as<char>(), n, *text_space_,
                                             text_totals_->as<gpu::FastqTextTotals>(), stream_),
                        "GPU k-mer counting (FASTQ text)");
    const std::size_t most = n / 2;
    if (held_ + most > capacity_) held_ = read_counter();  // held_ was an upper bound
    if (held_ > capacity_) {
      // More k-mers than well-formed text can hold: the text is malformed,
      // which text_totals() reports; no further k-mers are taken.
      text_overflow_ = true;
    } else {
      const std::uint64_t one_record[2] = {0, n};
      gpu::copy_to_device(slot.offsets.data(), one_record, sizeof one_record, stream_);
      gpu::KmerExtraction job = extraction();
      job.bases = slot.text.as<const char>();
      job.offsets = slot.offsets.as<const std::uint64_t>();
      job.records = 1;
      if (held_ + most <= capacity_) {
        // Room for every k-mer the chunk can hold: one launch, no round trip.
        job.end_from = 0;
        job.end_to = n;
        require_gpu_success(gpu::extract_kmers(job, columns(), capacity_,
                                               counter_.as<unsigned long long>(), stream_),
                            "GPU k-mer counting (extract)");
        held_ += most;
      } else {
        // The room may fill within this chunk: counted in exact slices.
        extract(job, n);
        held_ = read_counter();
      }
    }
    slot.used.record(stream_);
    previous.copied.synchronize();
  }

  TextTotals text_totals() override {
    gpu::use_device(device_index_);
    TextTotals out;
    if (!text_totals_) return out;
    gpu::FastqTextTotals t{};
    gpu::copy_to_host(&t, text_totals_->data(), sizeof t, stream_);
    stream_.synchronize();
    out.records = t.records;
    out.bases = t.bases;
    if (t.first_bad != ~0ULL) {
      out.malformed = true;
      out.malformed_record = t.first_bad >> 3;
      out.problem = text_problem(static_cast<unsigned>(t.first_bad & 7));
    }
    reset_text_totals();
    return out;
  }

  void finish() override {
    gpu::use_device(device_index_);
    held_ = exact_count();
    if (held_ > 0) flush();
  }

  // With a single round the histogram is made on the device: the distinct
  // k-mers (the bulk of a run) never cross PCIe.
  bool finish_with_histogram(
      std::vector<std::pair<std::uint32_t, std::uint64_t>>& frequencies) override {
    gpu::use_device(device_index_);
    frequencies.clear();
    held_ = exact_count();
    if (rounds_ > 0) {
      if (held_ > 0) flush();
      return false;
    }
    std::size_t runs = 0;
    require_gpu_success(gpu::sort_and_count(columns(), held_, params_.k, space_, runs, stream_),
                        "GPU k-mer counting (sort)");
    trace("gpu engine: sorted and counted");
    require_gpu_success(gpu::count_frequencies(space_.counts.as<std::uint32_t>(), runs, held_,
                                               frequencies, stream_),
                        "GPU k-mer counting (histogram)");
    held_ = 0;
    return true;
  }

 private:
  // Runs before any member touches the device, so streams and buffers are
  // made on the chosen one. The engine may be built on one thread and used
  // on another (count_job.cpp builds it while the input is read), and the
  // current device is per thread: every entry point selects it again.
  static int select_device(int index) {
    gpu::use_device(index);
    return index;
  }

  // The room: the k-mers gathered on the device before a round is counted,
  // and the sort's space for them.
  struct Room {
    std::size_t capacity;
    gpu::KmerSortSpace space;
    gpu::DeviceBuffer high, low;
  };

  GpuCountingEngine(const EngineParams& params, RunSink& sink, Room room)
      : params_(params),
        sink_(sink),
        device_index_(params.device_index),
        capacity_(room.capacity),
        space_(std::move(room.space)),
        high_(std::move(room.high)),
        low_(std::move(room.low)),
        counter_(sizeof(unsigned long long)) {
    gpu::fill_device(counter_.data(), 0, counter_.size(), stream_);
  }

  // The room is sized from the free memory measured just before; when
  // another process took some in between, half the room is tried, down to
  // the smallest that counts at all: more rounds, the same output.
  static Room allocate_room(const EngineParams& params) {
    (void)select_device(params.device_index);
    return with_halving_on_oom(
        choose_capacity(params), params.tunables.gpu_minimum_capacity,
        [&](std::size_t capacity) {
          gpu::KmerSortSpace space(capacity, params.k);
          gpu::DeviceBuffer high(capacity * sizeof(std::uint64_t));
          gpu::DeviceBuffer low(words_for_k(params.k) == 2 ? capacity * sizeof(std::uint64_t) : 0);
          return Room{capacity, std::move(space), std::move(high), std::move(low)};
        },
        [](std::size_t capacity) {
          trace("kmer-count: device memory short, room of " + std::to_string(capacity) +
                " k-mers tried");
        });
  }

  static std::size_t choose_capacity(const EngineParams& params) {
    const std::size_t minimum = params.tunables.gpu_minimum_capacity;
    const std::size_t budget = std::min<std::size_t>(
        params.memory_budget,
        static_cast<std::size_t>(static_cast<double>(gpu::free_device_memory()) *
                                 params.tunables.gpu_device_share));
    const std::size_t per_kmer = gpu::KmerSortSpace::bytes_per_kmer(params.k) +
                                 sizeof(std::uint64_t) * words_for_k(params.k);
    const std::size_t capacity = std::min<std::size_t>(budget / per_kmer, 0xfffffff0u);
    if (capacity < minimum)
      throw Error("the GPU memory allowed (" + std::to_string(budget >> 20) +
                  " MiB) is too small to count k-mers: at least " +
                  std::to_string((minimum * per_kmer) >> 20) + " MiB are needed");
    // No more than the input can fill: allocating (and, at exit, releasing)
    // most of an 80 GB device for a 1 GB input costs time, and shared GPUs
    // have other users.
    if (params.kmer_bound > 0)
      return std::min<std::size_t>(capacity, std::max<std::uint64_t>(minimum, params.kmer_bound));
    return capacity;
  }

  gpu::KmerExtraction extraction() const {
    gpu::KmerExtraction job;
    job.k = params_.k;
    job.canonical = params_.canonical;
    for (int i = 0; i < 2; ++i) {
      job.key_from[i] = params_.keys.from[i];
      job.key_to[i] = params_.keys.to[i];
    }
    job.key_to_end = params_.keys.to_end;
    return job;
  }

  // Appends the k-mers ending in [0, total) of `job`'s text; held_ must be
  // current. Text larger than the room left is taken in slices, each adding
  // at most one k-mer per end position; a full room is counted and handed
  // to the sink first.
  void extract(gpu::KmerExtraction job, std::size_t total) {
    for (std::size_t from = 0; from < total;) {
      // A nearly full room is counted first, so slices stay large.
      if (capacity_ - held_ < std::min(total - from, capacity_ / 4)) flush();
      const std::size_t to = std::min(total, from + (capacity_ - held_));
      job.end_from = from;
      job.end_to = to;
      require_gpu_success(
          gpu::extract_kmers(job, columns(), capacity_, counter_.as<unsigned long long>(), stream_),
          "GPU k-mer counting (extract)");
      if (to < total) held_ = read_counter();
      from = to;
    }
  }

  void reset_text_totals() {
    if (!text_totals_) text_totals_.emplace(sizeof(gpu::FastqTextTotals));
    gpu::FastqTextTotals zero{0, 0, ~0ULL};
    gpu::copy_to_device(text_totals_->data(), &zero, sizeof zero, stream_);
    stream_.synchronize();
  }

  static std::string text_problem(unsigned code) {
    switch (code) {
      case gpu::kFastqNoAt:
        return "its header line does not start with '@'";
      case gpu::kFastqNoPlus:
        return "its third line does not start with '+'";
      case gpu::kFastqQualityLength:
        return "its quality line is not as long as its sequence";
      default:
        return "the input ends inside it";
    }
  }

  gpu::KmerColumns columns() const {
    gpu::KmerColumns c;
    c.high = high_.as<std::uint64_t>();
    if (words_for_k(params_.k) == 2) c.low = low_.as<std::uint64_t>();
    return c;
  }

  void upload(const io::SequenceBatch& batch) {
    const std::size_t base_bytes = batch.bases.size();
    const std::size_t offset_bytes = batch.offsets.size() * sizeof(std::uint64_t);
    if (bases_.size() < base_bytes) bases_ = gpu::DeviceBuffer(base_bytes);
    if (offsets_.size() < offset_bytes) offsets_ = gpu::DeviceBuffer(offset_bytes);
    gpu::copy_to_device(bases_.data(), batch.bases.data(), base_bytes, stream_);
    gpu::copy_to_device(offsets_.data(), batch.offsets.data(), offset_bytes, stream_);
  }

  // The k-mers gathered, once every chunk's work is done; an overflow of
  // the room (only malformed text can cause one, and text_totals() names
  // it first) must never reach the sort as a short count.
  std::size_t exact_count() {
    const std::size_t n = read_counter();
    if (text_overflow_ || n > capacity_)
      throw Error("internal: the GPU k-mer room overflowed (" + std::to_string(n) +
                  " k-mers, room " + std::to_string(capacity_) + ")");
    return n;
  }

  std::size_t read_counter() {
    unsigned long long n = 0;
    gpu::copy_to_host(&n, counter_.data(), sizeof n, stream_);
    stream_.synchronize();
    return static_cast<std::size_t>(n);
  }

  void flush() {
    std::size_t runs = 0;
    require_gpu_success(gpu::sort_and_count(columns(), held_, params_.k, space_, runs, stream_),
                        "GPU k-mer counting (sort)");
    trace("gpu engine " + std::to_string(device_index_) + ": a round sorted, " +
          std::to_string(held_) + " k-mers, " + std::to_string(runs) + " distinct");
    const RunGate::Pass pass =
        params_.run_gate != nullptr
            ? RunGate::Pass(
                  *params_.run_gate,
                  runs * (sizeof(std::uint64_t) * words_for_k(params_.k) + sizeof(std::uint32_t)))
            : RunGate::Pass();
    SortedRun run;
    run.k = params_.k;
    run.words.resize(runs * words_for_k(params_.k));
    run.counts.resize(runs);
    // Into fresh host memory through pinned staging on the host threads.
    gpu::copy_to_pageable_host(run.words.data(), space_.unique_words.data(),
                               run.words.size() * sizeof(std::uint64_t), stream_, params_.threads);
    gpu::copy_to_pageable_host(run.counts.data(), space_.counts.data(),
                               run.counts.size() * sizeof(std::uint32_t), stream_, params_.threads);
    gpu::fill_device(counter_.data(), 0, counter_.size(), stream_);
    stream_.synchronize();
    trace("gpu engine " + std::to_string(device_index_) + ": the round's run on the host");
    held_ = 0;
    ++rounds_;
    sink_.take(std::move(run));
  }

  EngineParams params_;
  RunSink& sink_;
  int device_index_;
  gpu::Stream stream_;
  std::size_t capacity_;  // k-mers gathered before a round is counted
  gpu::KmerSortSpace space_;
  gpu::DeviceBuffer high_, low_;       // the gathered k-mers, one column per word
  gpu::DeviceBuffer counter_;          // how many of them (device-side, for the kernel's appends)
  gpu::DeviceBuffer bases_, offsets_;  // a parsed batch
  // FASTQ text chunks, masked in place, in two slots taken in turn.
  struct TextSlot {
    gpu::DeviceBuffer text;
    gpu::DeviceBuffer offsets{2 * sizeof(std::uint64_t)};  // the chunk as one record
    gpu::Event copied;                                     // its text is on the device
    gpu::Event used;                                       // its kernels are done
  };
  gpu::Stream copy_stream_;
  TextSlot text_slots_[2];
  int next_slot_ = 0;
  bool text_overflow_ = false;
  std::optional<gpu::FastqTextSpace> text_space_;
  std::optional<gpu::DeviceBuffer> text_totals_;  // gpu::FastqTextTotals
  // K-mers gathered: the device's count as of the last read_counter(), or an
  // upper bound of it after text chunks.
  std::size_t held_ = 0;
  int rounds_ = 0;  // runs handed to the sink
};

}  // namespace

bool gpu_engine_compiled() noexcept {
  return true;
}

std::unique_ptr<CountingEngine> make_gpu_engine(const EngineParams& params, RunSink& sink) {
  return std::make_unique<GpuCountingEngine>(params, sink);
}

}  // namespace seqfuse::kmer
