#include "kmer/count_workers.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "core/device_workers.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "gpu/runtime.hpp"
#include "io/batch_reader.hpp"
#include "kmer/broadcast_ring.hpp"
#include "kmer/gpu_engine.hpp"
#include "kmer/key_ranges.hpp"

namespace seqfuse::kmer {
namespace {

// One numbered piece of the input, as every worker sees it.
struct Piece {
  enum class Kind { kText, kBatch, kTextEnd } kind = Kind::kText;
  const char* text = nullptr;  // kText: a ring slot's pinned chunk
  std::size_t size = 0;
  const io::SequenceBatch* batch = nullptr;  // kBatch: the reader's, until all release it
};

// What a worker leaves for the reading thread and for the end of the count.
struct WorkerState {
  TextTotals totals;             // of the last whole FASTQ file (read once all released its end)
  double adding_seconds = 0;     // in the engine's add calls (SEQFUSE_TRACE)
  double finishing_seconds = 0;  // in its finish
  bool histogram_given = false;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> frequencies;
};

// Thrown on the reading thread when the ring was stopped: a worker failed,
// and its error is the run's.
struct RingStopped {};

class WorkerRun {
 public:
  WorkerRun(const CountOptions& options, const WorkerCount& setup, RunStore& store,
            std::vector<std::unique_ptr<io::TextBuffer>> texts)
      : options_(options),
        setup_(setup),
        store_(store),
        ring_(setup.devices.size(), kWorkerRingSlots),
        pieces_(kWorkerRingSlots),
        texts_(std::move(texts)),
        ranges_(ranges_promise_.get_future().share()),
        run_gate_(options.max_memory / 3),
        states_(setup.devices.size()) {
    while (texts_.size() < kWorkerRingSlots)
      texts_.push_back(std::make_unique<io::TextBuffer>(gpu::pinned_resource()));
  }

  // The workers on their threads, the input read on this one.
  WorkersCounted run(std::optional<FastqText>& first_text, CountStats& stats, Reporter& report) {
    std::exception_ptr workers_failed;
    std::exception_ptr reading_failed;
    {
      std::jthread pool([&] {
        try {
          const DeviceWork work = [this](std::stop_token stop, std::size_t w, int) {
            work_on(stop, w);
          };
          // A device that cannot be made current stops the reading at once.
          const BindDevice bind = [this](int device) {
            try {
              if (setup_.engines.bind)
                setup_.engines.bind(device);
              else
                gpu::use_device(device);
            } catch (...) {
              ring_.stop();
              throw;
            }
          };
          run_device_workers(setup_.devices, work, bind);
        } catch (...) {
          workers_failed = std::current_exception();
          ring_.stop();
        }
      });
      try {
        read_inputs(first_text, stats, report);
        ring_.close();
      } catch (const RingStopped&) {
        // A worker's error ends the run.
      } catch (...) {
        reading_failed = std::current_exception();
        ring_.stop();
      }
      if (!ranges_set_) {  // workers still waiting for their ranges: none comes
        ranges_promise_.set_exception(std::make_exception_ptr(RingStopped{}));
        ranges_set_ = true;
      }
    }  // the workers are joined
    // A bad input is reported as one engine reports it; a worker that failed
    // meanwhile most likely stopped because of it.
    if (reading_failed) std::rethrow_exception(reading_failed);
    if (workers_failed) std::rethrow_exception(workers_failed);
    trace_waits();

    WorkersCounted counted;
    counted.histogram_complete = setup_.histogram_only;
    std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> given;
    for (WorkerState& state : states_) {
      counted.histogram_complete = counted.histogram_complete && state.histogram_given;
      if (state.histogram_given) given.push_back(std::move(state.frequencies));
    }
    counted.frequencies = add_frequencies(given);
    return counted;
  }

 private:
  // Who waited for whom: a reader that waits for free slots has workers
  // slower than its reading; workers that wait for pieces have a slow reader.
  void trace_waits() const {
    char line[160];
    std::snprintf(line, sizeof line,
                  "kmer-count workers: reading %.3f s, the reader waited %.3f s for free slots",
                  reading_seconds_, ring_.producer_wait_seconds());
    trace(line);
    for (std::size_t w = 0; w < states_.size(); ++w) {
      std::snprintf(line, sizeof line,
                    "kmer-count worker %zu: waited %.3f s for pieces, adding %.3f s, "
                    "finishing %.3f s",
                    w, ring_.consumer_wait_seconds(w), states_[w].adding_seconds,
                    states_[w].finishing_seconds);
      trace(line);
    }
  }

  // ---- a worker, on its own thread with its device current ----

  void work_on(std::stop_token stop, std::size_t w) {
    try {
      const std::vector<KeyRange>* ranges = nullptr;
      try {
        ranges = &ranges_.get();
      } catch (const RingStopped&) {
        return;  // the reading failed before it had a sample: its error is the run's
      }
      EngineParams params =
          worker_engine_params(setup_.engine, setup_.devices, w, (*ranges)[w], setup_.bound_slack);
      params.run_gate = &run_gate_;
      std::unique_ptr<CountingEngine> engine = setup_.engines.make
                                                   ? setup_.engines.make(params, store_)
                                                   : make_gpu_engine(params, store_);
      if (engine->takes_fastq_text() != setup_.engines.takes_fastq_text)
        throw Error("internal: a k-mer worker engine does not take the input it was promised");
      WorkerState& state = states_[w];
      std::size_t i = 0;
      for (; ring_.wait_for_piece(w, i, stop); ++i) {
        const Stopwatch adding;
        const Piece& piece = pieces_[i % kWorkerRingSlots];
        switch (piece.kind) {
          case Piece::Kind::kText:
            // The engine may read this chunk until its next call; the one
            // before is free now.
            engine->add_fastq_text(piece.text, piece.size);
            ring_.release(w, i);
            break;
          case Piece::Kind::kBatch:
            engine->add(*piece.batch);
            ring_.release(w, i + 1);
            break;
          case Piece::Kind::kTextEnd:
            state.totals = engine->text_totals();
            ring_.release(w, i + 1);
            break;
        }
        state.adding_seconds += adding.seconds();
      }
      if (ring_.stopped() || stop.stop_requested()) return;  // the run failed elsewhere
      const Stopwatch finishing;
      if (setup_.histogram_only) {
        state.histogram_given = engine->finish_with_histogram(state.frequencies);
      } else {
        engine->finish();
      }
      state.finishing_seconds = finishing.seconds();
      ring_.release(w, i);
      if (options_.exits_after && state.histogram_given)
        (void)engine.release();  // see CountOptions::exits_after
    } catch (...) {
      ring_.stop();
      throw;
    }
  }

  // ---- the reading thread ----

  void read_inputs(std::optional<FastqText>& first_text, CountStats& stats, Reporter& report) {
    for (std::size_t i = 0; i < options_.inputs.size(); ++i) {
      const std::string& input = options_.inputs[i];
      if (i == 0 && first_text) {
        read_text(*first_text, stats, report);
        first_text.reset();
        continue;
      }
      // As with one engine: FASTQ files go unparsed to engines that parse
      // on their device; stdin cannot be peeked at, so it is parsed here.
      const bool as_text =
          setup_.engines.takes_fastq_text && input != "-" && io::first_symbol(input) == '@';
      if (as_text) {
        FastqText text = open_fastq_text(input, setup_.chunk_bytes, options_.threads);
        read_text(text, stats, report);
      } else {
        read_batches(input, stats, report);
      }
    }
    set_ranges(KmerSample(options_.k, options_.canonical));  // no input had a piece
  }

  void read_text(FastqText& text, CountStats& stats, Reporter& report) {
    std::uint64_t bytes = 0;
    const auto publish = [&](io::TextBuffer& chunk) {
      if (!ranges_set_) {
        KmerSample sample(options_.k, options_.canonical);
        sample.add_fastq_text(chunk.data(), chunk.size());
        set_ranges(sample);
      }
      pieces_[next_ % kWorkerRingSlots] = {Piece::Kind::kText, chunk.data(), chunk.size(), nullptr};
      ring_.publish(++next_);
      bytes += chunk.size();
      report.progress(si_number(static_cast<double>(bytes)) + "B of FASTQ");
    };
    // The chunks read while the devices started sit in pageable memory, from
    // which a device copy runs at a fraction of PCIe speed: they go through
    // the pinned slots too, copied there on every thread.
    while (!text.early.empty()) {
      io::TextBuffer& slot = free_slot();
      const io::TextBuffer& chunk = text.early.front();
      slot.reserve(chunk.size());
      parallel_copy(slot.data(), chunk.data(), chunk.size(), options_.threads);
      slot.resize(chunk.size());
      text.early.pop_front();
      publish(slot);
    }
    for (;;) {
      io::TextBuffer& slot = free_slot();
      if (!text.reader->next(slot)) break;
      publish(slot);
    }
    reading_seconds_ += text.reader->reading_seconds();
    // Every worker's engine parsed the whole file: they all know its records
    // and the first malformed one. Waiting for them here, as one engine's
    // count waits for its text_totals(), reports a bad file before the next
    // input is opened.
    put({Piece::Kind::kTextEnd, nullptr, 0, nullptr});
    if (!ring_.wait_released(next_)) throw RingStopped{};
    const TextTotals& totals = states_.front().totals;
    for (const WorkerState& state : states_)
      if (state.totals.records != totals.records || state.totals.bases != totals.bases ||
          state.totals.malformed != totals.malformed)
        throw Error("internal: k-mer workers read different FASTQ text");
    take_text_totals(totals, text.reader->display_name(), stats, report);
  }

  void read_batches(const std::string& input, CountStats& stats, Reporter& report) {
    io::BatchLimits limits;
    limits.max_bases = setup_.batch_bases;
    // A member, not a local: when the run stops, workers may still be adding
    // its batch, and it must outlive them (it goes once they are joined).
    batch_reader_ = std::make_unique<io::BatchReader>(input, limits);
    io::BatchReader& reader = *batch_reader_;
    bool any = false;
    while (io::SequenceBatch* batch = reader.next()) {
      any = any || !batch->empty();
      stats.reads += batch->size();
      stats.bases += batch->total_bases();
      if (!ranges_set_) {
        KmerSample sample(options_.k, options_.canonical);
        sample.add_batch(*batch);
        set_ranges(sample);
      }
      put({Piece::Kind::kBatch, nullptr, 0, batch});
      // The reader recycles the batch at its next call: every worker must be
      // done with it (the reader's own thread parses the next one meanwhile).
      if (!ring_.wait_released(next_)) throw RingStopped{};
      show_progress(stats, report);
    }
    if (!any) warn_empty(reader.display_name(), report);
    batch_reader_.reset();  // every worker released its last batch
  }

  // The text buffer of the next piece, once every worker is done with it.
  io::TextBuffer& free_slot() {
    if (!ring_.wait_for_slot(next_)) throw RingStopped{};
    return *texts_[next_ % kWorkerRingSlots];
  }

  void put(const Piece& piece) {
    if (!ring_.wait_for_slot(next_)) throw RingStopped{};
    set_ranges(KmerSample(options_.k, options_.canonical));  // none yet: no k-mer so far
    pieces_[next_ % kWorkerRingSlots] = piece;
    ring_.publish(++next_);
  }

  void set_ranges(const KmerSample& sample) {
    if (ranges_set_) return;
    ranges_promise_.set_value(
        split_key_space(sample.keys(), options_.k, options_.canonical, setup_.devices.size()));
    ranges_set_ = true;
  }

  const CountOptions& options_;
  const WorkerCount& setup_;
  RunStore& store_;
  BroadcastRing ring_;
  std::vector<Piece> pieces_;  // by slot; written before publish, read after
  std::vector<std::unique_ptr<io::TextBuffer>> texts_;  // by slot, pinned
  std::size_t next_ = 0;                                // the next piece's number
  std::promise<std::vector<KeyRange>> ranges_promise_;
  std::shared_future<std::vector<KeyRange>> ranges_;
  bool ranges_set_ = false;     // reading thread only
  double reading_seconds_ = 0;  // the text readers' reading_seconds() (SEQFUSE_TRACE)
  RunGate run_gate_;            // EngineParams::run_gate
  std::vector<WorkerState> states_;
  std::unique_ptr<io::BatchReader> batch_reader_;  // of the input being parsed here
};

}  // namespace

EngineParams worker_engine_params(const EngineParams& base, const std::vector<int>& devices,
                                  std::size_t worker, const KeyRange& keys,
                                  std::size_t bound_slack) {
  EngineParams params = base;
  params.keys = keys;
  params.device_index = devices.at(worker);
  const auto sharing =
      static_cast<std::size_t>(std::count(devices.begin(), devices.end(), params.device_index));
  params.memory_budget = base.memory_budget / sharing;
  // The host threads an engine uses (the GPU engine's staged copies of its
  // runs) are shared by the workers, which copy at the same time.
  params.threads = std::max(1u, base.threads / static_cast<unsigned>(devices.size()));
  params.tunables.gpu_device_share = base.tunables.gpu_device_share / static_cast<double>(sharing);
  if (base.kmer_bound > 0) {
    const std::uint64_t slack = std::min<std::uint64_t>(bound_slack, base.kmer_bound);
    const std::uint64_t share = (base.kmer_bound - slack) / devices.size();
    params.kmer_bound = std::min<std::uint64_t>(base.kmer_bound, share + share / 2 + slack);
  }
  return params;
}

std::vector<std::pair<std::uint32_t, std::uint64_t>> add_frequencies(
    const std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>>& lists) {
  std::map<std::uint32_t, std::uint64_t> sum;
  for (const auto& list : lists)
    for (const auto& [count, kmers] : list) sum[count] += kmers;
  return {sum.begin(), sum.end()};
}

WorkersCounted count_on_workers(const CountOptions& options, const WorkerCount& setup,
                                RunStore& store, std::optional<FastqText>& first_text,
                                std::vector<std::unique_ptr<io::TextBuffer>> ring_texts,
                                CountStats& stats, Reporter& report) {
  WorkerRun run(options, setup, store, std::move(ring_texts));
  return run.run(first_text, stats, report);
}

}  // namespace seqfuse::kmer
