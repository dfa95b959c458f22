// kmer-count split across GPU workers (--device gpu:0,1,...), on the CPU:
// the broadcast ring, the key-range split, the worker parameters, the merge
// of disjoint runs, and whole counts where CPU engines stand in for the
// devices (one taking parsed batches, one taking FASTQ text as the GPU
// engine does). Every output of 1, 2 and 3 workers must equal the CPU
// engine's, byte for byte.
#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"
#include "kmer/broadcast_ring.hpp"
#include "kmer/count_job.hpp"
#include "kmer/count_workers.hpp"
#include "kmer/cpu_engine.hpp"
#include "kmer/key_ranges.hpp"
#include "kmer/run_gate.hpp"
#include "kmer/run_merge.hpp"
#include "kmer/run_store.hpp"
#include "test_io_support.hpp"
#include "test_kmer_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::kmer;
using seqfuse::kmer::test::merge_blocks;
using seqfuse::kmer::test::random_reads;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

// ---- a stand-in for the GPU engine: FASTQ text, counted by a CPU engine ----

// Passes runs on, or keeps them back for a histogram.
class RelaySink final : public RunSink {
 public:
  explicit RelaySink(RunSink& out) : out_(out) {}
  void take(SortedRun run) override {
    if (hold) {
      held.push_back(std::move(run));
      return;
    }
    ++forwarded;
    out_.take(std::move(run));
  }
  bool hold = false;
  std::vector<SortedRun> held;
  int forwarded = 0;

 private:
  RunSink& out_;
};

// Parses FASTQ text on the host (the GPU engine parses it on the device)
// unless it is to take parsed batches only (`text` false), counts with a CPU
// engine (key range included), and ends a one-round histogram-only count
// with the histogram, as the GPU engine does. Throws at piece `fail_after`
// when that is not negative.
class TextCpuEngine final : public CountingEngine {
 public:
  TextCpuEngine(const EngineParams& params, RunSink& sink, bool text, int fail_after)
      : relay_(sink),
        inner_(make_cpu_engine(params, relay_)),
        text_(text),
        fail_after_(fail_after) {}

  void add(const seqfuse::io::SequenceBatch& batch) override {
    tick();
    inner_->add(batch);
  }
  [[nodiscard]] bool takes_fastq_text() const noexcept override { return text_; }
  void add_fastq_text(const char* text, std::size_t n) override {
    tick();
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < n) {
      std::size_t end = std::string_view(text, n).find('\n', at);
      if (end == std::string_view::npos) end = n;
      std::string line(text + at, end - at);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
      at = end + 1;
    }
    seqfuse::io::SequenceBatch batch;
    for (std::size_t r = 0; r * 4 < lines.size() && !totals_.malformed; ++r) {
      const auto bad = [&](const char* problem) {
        totals_.malformed = true;
        totals_.malformed_record = totals_.records;
        totals_.problem = problem;
      };
      if (r * 4 + 3 >= lines.size()) {
        bad("the input ends inside it");
      } else if (lines[r * 4].empty() || lines[r * 4][0] != '@') {
        bad("no @");
      } else if (lines[r * 4 + 2].empty() || lines[r * 4 + 2][0] != '+') {
        bad("no +");
      } else if (lines[r * 4 + 3].size() != lines[r * 4 + 1].size()) {
        bad("quality length");
      } else {
        batch.push_back("r", "", lines[r * 4 + 1]);
        ++totals_.records;
        totals_.bases += lines[r * 4 + 1].size();
      }
    }
    inner_->add(batch);
  }
  TextTotals text_totals() override { return std::exchange(totals_, TextTotals{}); }
  void finish() override { inner_->finish(); }
  bool finish_with_histogram(
      std::vector<std::pair<std::uint32_t, std::uint64_t>>& frequencies) override {
    frequencies.clear();
    if (relay_.forwarded > 0) {
      inner_->finish();
      return false;
    }
    relay_.hold = true;
    inner_->finish();
    std::map<std::uint32_t, std::uint64_t> histogram;
    for (const SortedRun& run : relay_.held)
      for (const std::uint32_t count : run.counts) ++histogram[count];
    // On a worker's thread: no Catch check here.
    if (relay_.held.size() > 1) throw std::logic_error("a finish made more than one run");
    frequencies.assign(histogram.begin(), histogram.end());
    return true;
  }

 private:
  void tick() {
    if (fail_after_ >= 0 && pieces_++ == fail_after_)
      throw seqfuse::Error("stand-in device failed");
  }

  RelaySink relay_;
  std::unique_ptr<CountingEngine> inner_;
  bool text_;
  int fail_after_;
  int pieces_ = 0;
  TextTotals totals_;
};

struct StandIn {
  bool text = true;
  std::size_t engine_budget = 0;  // 0: as the job plans it
  int failing_device = -1;        // its engine throws at its third piece
  int unbindable_device = -1;     // making it current throws
  bool plain_cpu_engine = false;  // make_cpu_engine itself (parsed batches, no histogram)
};

GpuWorkerEngines stand_in_engines(const StandIn& s, std::vector<EngineParams>* made = nullptr,
                                  std::mutex* made_mutex = nullptr) {
  GpuWorkerEngines engines;
  engines.takes_fastq_text = s.text;
  engines.make = [s, made, made_mutex](const EngineParams& given,
                                       RunSink& sink) -> std::unique_ptr<CountingEngine> {
    EngineParams params = given;
    if (made != nullptr) {
      const std::lock_guard lock(*made_mutex);
      made->push_back(params);
    }
    if (s.engine_budget > 0) params.memory_budget = s.engine_budget;
    if (s.plain_cpu_engine) return make_cpu_engine(params, sink);
    return std::make_unique<TextCpuEngine>(params, sink, s.text,
                                           params.device_index == s.failing_device ? 2 : -1);
  };
  engines.bind = [s](int device) {
    if (device == s.unbindable_device) throw seqfuse::Error("stand-in device cannot start");
  };
  return engines;
}

// ---- whole counts ----

struct Outputs {
  std::string db, dump, histo;
  CountStats stats;
};

// Counts `inputs` into dir/<tag>.{kdb,dump,histo}: on the CPU engine when
// `devices` is empty, else on stand-in GPU workers.
Outputs count(const TempDir& dir, const std::string& tag, CountOptions options,
              const std::vector<int>& devices, const GpuWorkerEngines& engines, bool histo_only) {
  options.max_memory = kMinMaxMemory;
  options.threads = 2;
  options.tunables.gpu_text_chunk_bytes = 8192;  // many chunks: the ring turns over
  if (!devices.empty()) {
    // A device start that takes a moment, as a GPU's does: the first FASTQ
    // chunks are read ahead meanwhile and go to the workers afterwards.
    options.choose_device = [devices] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return seqfuse::DeviceChoice{true, devices};
    };
    options.gpu_required = true;
    options.gpu_workers = engines;
  }
  options.histo_path = dir.file(tag + ".histo").string();
  if (!histo_only) {
    options.db_path = dir.file(tag + ".kdb").string();
    options.dump_path = dir.file(tag + ".dump").string();
  }
  seqfuse::Reporter report("kmer-count", true);
  Outputs out;
  out.stats = run_count_job(options, report);
  out.histo = slurp(options.histo_path);
  if (!histo_only) {
    out.db = slurp(options.db_path);
    out.dump = slurp(options.dump_path);
  }
  return out;
}

std::string fastq_of(const std::vector<std::string>& reads, std::size_t begin, std::size_t end) {
  std::string text;
  for (std::size_t i = begin; i < end; ++i)
    text += "@r" + std::to_string(i) + "\n" + reads[i] + "\n+\n" +
            std::string(reads[i].size(), 'I') + "\n";
  return text;
}

// A FASTA, a FASTQ, a gzip FASTQ and an empty FASTQ of `reads`.
std::vector<std::string> write_inputs(const TempDir& dir, const std::vector<std::string>& reads) {
  const std::size_t third = reads.size() / 3;
  std::ofstream fasta(dir.file("a.fa"));
  for (std::size_t i = 0; i < third; ++i) fasta << ">r" << i << "\n" << reads[i] << "\n";
  fasta.close();
  std::ofstream(dir.file("b.fq")) << fastq_of(reads, third, 2 * third);
  seqfuse::io::test::write_gzip(dir.file("c.fq.gz").string(),
                                fastq_of(reads, 2 * third, reads.size()));
  std::ofstream(dir.file("empty.fq")).close();
  return {dir.file("b.fq").string(), dir.file("a.fa").string(), dir.file("empty.fq").string(),
          dir.file("c.fq.gz").string()};
}

}  // namespace

TEST_CASE("a broadcast ring gives every piece to every consumer in order", "[kmer][devices]") {
  constexpr std::size_t kConsumers = 3, kSlots = 4, kPieces = 400;
  BroadcastRing ring(kConsumers, kSlots);
  std::vector<std::atomic<std::size_t>> slot(kSlots);
  std::vector<std::vector<std::size_t>> seen(kConsumers);
  std::atomic<bool> overwritten{false};
  std::vector<std::thread> consumers;
  for (std::size_t c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&, c] {
      std::mt19937 rng(static_cast<unsigned>(c));
      for (std::size_t i = 0; ring.wait_for_piece(c, i, {}); ++i) {
        seen[c].push_back(slot[i % kSlots].load());
        if (rng() % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
        if (slot[i % kSlots].load() != i) overwritten = true;  // still held: must not change
        ring.release(c, i + 1);
      }
    });
  }
  for (std::size_t i = 0; i < kPieces; ++i) {
    REQUIRE(ring.wait_for_slot(i));
    slot[i % kSlots] = i;
    ring.publish(i + 1);
  }
  ring.close();
  for (std::thread& t : consumers) t.join();
  CHECK_FALSE(overwritten);
  for (const auto& pieces : seen) {
    REQUIRE(pieces.size() == kPieces);
    for (std::size_t i = 0; i < kPieces; ++i) CHECK(pieces[i] == i);
  }
  CHECK(ring.wait_released(kPieces));
}

TEST_CASE("a stopped broadcast ring wakes the producer and the consumers", "[kmer][devices]") {
  BroadcastRing ring(2, 2);
  REQUIRE(ring.wait_for_slot(0));
  REQUIRE(ring.wait_for_slot(1));
  ring.publish(2);
  // Catch's checks are for the main thread: the waiters keep their answers.
  std::atomic<int> producer_got{-1}, consumer_got{-1};
  std::atomic<int> running{0};  // the waiters about to wait
  const auto started = std::chrono::steady_clock::now();
  std::thread producer([&] {
    ++running;
    producer_got = ring.wait_for_slot(2);  // consumer 1 never releases
  });
  std::thread consumer([&] {
    ++running;
    consumer_got = ring.wait_for_piece(0, 2, {});
  });
  while (running < 2) std::this_thread::yield();  // a busy machine may start them late
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ring.release(0, 2);
  ring.stop();
  producer.join();
  consumer.join();
  CHECK(producer_got == 0);
  CHECK(consumer_got == 0);
  CHECK(ring.stopped());
  // Both blocked until the stop, and the account says so (how long depends on
  // when each thread got to run on a busy machine: more than nothing, less
  // than the whole test); consumer 1 never waited.
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(ring.producer_wait_seconds() > 0);
  CHECK(ring.producer_wait_seconds() <= elapsed);
  CHECK(ring.consumer_wait_seconds(0) > 0);
  CHECK(ring.consumer_wait_seconds(0) <= elapsed);
  CHECK(ring.consumer_wait_seconds(1) == 0);
  CHECK_FALSE(ring.wait_released(0));
  // A consumer's own stop token wakes it too.
  BroadcastRing idle(1, 1);
  std::stop_source stop;
  std::atomic<int> idle_got{-1};
  std::thread waiting([&] { idle_got = idle.wait_for_piece(0, 0, stop.get_token()); });
  stop.request_stop();
  waiting.join();
  CHECK(idle_got == 0);
}

TEST_CASE("the run gate keeps the bytes in flight within its budget", "[kmer][devices]") {
  RunGate gate(100);
  std::atomic<std::size_t> in_flight{0}, most{0};
  std::atomic<bool> over{false};
  std::vector<std::thread> engines;
  for (int e = 0; e < 6; ++e) {
    engines.emplace_back([&, e] {
      std::mt19937 rng(static_cast<unsigned>(e));
      for (int r = 0; r < 200; ++r) {
        // Mostly runs that fit two or three at a time, now and then one
        // larger than the whole budget, which must still pass (alone).
        const std::size_t bytes = rng() % 50 == 0 ? 250 : 20 + rng() % 40;
        const RunGate::Pass pass(gate, bytes);
        const std::size_t now = in_flight += bytes;
        if (now > 100 && now != bytes) over = true;
        std::size_t seen = most;
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 50));
        in_flight -= bytes;
      }
    });
  }
  for (std::thread& t : engines) t.join();
  CHECK_FALSE(over);
  CHECK(most > 60);  // runs did pass together
  CHECK(gate.in_flight() == 0);
}

TEST_CASE("key ranges cut at sample quantiles hold every k-mer once, evenly", "[kmer][devices]") {
  std::mt19937_64 rng(seqfuse::kmer::test::test_seed());
  // The edge-case reads (homopolymers: one key can weigh more than a part)
  // for the cover, uniform random bases for the balance.
  const std::vector<std::string> reads = random_reads(rng, 3000, 200);
  std::vector<std::string> uniform(2000, std::string(150, 'A'));
  for (std::string& read : uniform)
    for (char& c : read) c = "ACGT"[rng() & 3];
  for (int k : {3, 15, 21, 32, 33, 45, 63}) {
    for (bool canonical : {true, false}) {
      const bool balanced = k >= 15;
      const seqfuse::io::SequenceBatch batch =
          seqfuse::kmer::test::make_batch(balanced ? uniform : reads);
      KmerSample sample(k, canonical, 20000);
      sample.add_batch(batch);
      KmerSample all(k, canonical, SIZE_MAX);
      all.add_batch(batch);
      for (std::size_t parts : {1, 2, 3, 5}) {
        INFO("k=" << k << " canonical=" << canonical << " parts=" << parts);
        const std::vector<KeyRange> ranges = split_key_space(sample.keys(), k, canonical, parts);
        REQUIRE(ranges.size() == parts);
        CHECK(ranges.front().from == KmerKey{});
        CHECK(ranges.back().to_end);
        for (std::size_t p = 0; p + 1 < parts; ++p) {
          CHECK_FALSE(ranges[p].to_end);
          CHECK(ranges[p].to == ranges[p + 1].from);
        }
        std::vector<std::size_t> in(parts, 0);
        for (const KmerKey& key : all.keys()) {
          int owners = 0;
          for (std::size_t p = 0; p < parts; ++p)
            if (ranges[p].contains(key)) ++owners, ++in[p];
          REQUIRE(owners == 1);
        }
        // Quantiles of a sample of 20,000 out of ~290,000 k-mers: within a
        // few percent.
        if (balanced)
          for (std::size_t p = 0; p < parts; ++p)
            CHECK(static_cast<double>(in[p] * parts) / static_cast<double>(all.keys().size()) ==
                  Approx(1.0).margin(0.1));
      }
    }
  }
  // Too small a sample: the model's k-mers of random bases cut instead.
  const std::vector<KeyRange> few = split_key_space({{5, 0}}, 21, true, 4);
  CHECK(few[1].from != few[2].from);
  CHECK(few[0].from == KmerKey{});
}

TEST_CASE("FASTQ text is sampled from its sequence lines", "[kmer][devices]") {
  const std::string text = "@ACGTACGT\r\nACGTA\r\n+ACGT\r\nIIIII\r\n@x\nTTTTT\n+\nIIIII\n";
  KmerSample sample(5, false);
  sample.add_fastq_text(text.data(), text.size());
  // ACGTA = 0b00'01'10'11'00, TTTTT = all ones; nothing from headers or qualities.
  REQUIRE(sample.keys().size() == 2);
  CHECK(sample.keys()[0] == KmerKey{0x6c, 0});
  CHECK(sample.keys()[1] == KmerKey{0x3ff, 0});
}

TEST_CASE("CPU engines on key ranges count what one engine counts", "[kmer][devices]") {
  std::mt19937_64 rng(seqfuse::kmer::test::test_seed());
  const std::vector<std::string> reads = random_reads(rng, 2000, 150);
  for (int k : {11, 31, 40}) {
    const seqfuse::kmer::test::EngineSetup setup{k, true, 1, std::size_t{1} << 16};
    const auto expected = seqfuse::kmer::test::count_on_cpu(reads, setup);
    KmerSample sample(k, true);
    sample.add_batch(seqfuse::kmer::test::make_batch(reads));
    const std::vector<KeyRange> ranges = split_key_space(sample.keys(), k, true, 3);
    RunStore store(k, std::size_t{64} << 20, std::filesystem::temp_directory_path().string());
    for (const KeyRange& range : ranges) {
      RunStore own(k, std::size_t{64} << 20, std::filesystem::temp_directory_path().string());
      EngineParams params;
      params.k = k;
      params.memory_budget = std::size_t{1} << 16;  // several rounds each
      params.keys = range;
      for (RunStore* into : {&store, &own}) {
        const auto engine = make_cpu_engine(params, *into);
        engine->add(seqfuse::kmer::test::make_batch(reads));
        engine->finish();
      }
      for (const SortedRun& run : own.memory_runs())
        for (std::size_t i = 0; i < run.size(); ++i) {
          const std::uint64_t* w = run.words.data() + i * run.words_per_kmer();
          REQUIRE(range.contains({w[0], run.words_per_kmer() == 2 ? w[1] : 0}));
        }
    }
    INFO("k=" << k);
    CHECK(seqfuse::kmer::test::merged_letters(store) == expected);
  }
}

TEST_CASE("runs with disjoint key spans pass through the merge in key order", "[kmer][devices]") {
  const auto run_of = [](std::vector<std::uint64_t> keys, std::uint32_t count) {
    SortedRun run;
    run.k = 21;
    run.words.assign(keys.begin(), keys.end());
    run.counts.assign(run.words.size(), count);
    return run;
  };
  for (bool touching : {false, true}) {
    RunStore store(21, std::size_t{64} << 20, std::filesystem::temp_directory_path().string());
    // Taken in no key order (workers finish when they finish); with
    // `touching`, the last key of one run is the first of the next.
    store.take(run_of({500, 600, 700}, 3));
    store.take(run_of({1, 2, touching ? 500u : 499u}, 1));
    store.take(run_of({900, 1000}, 7));
    std::vector<std::pair<std::uint64_t, std::uint32_t>> got;
    const MergeTotals totals = merge_blocks(store, 4096, [&](const RecordBlock& block) {
      for (std::size_t i = 0; i < block.size; ++i)
        got.emplace_back(block.words[i], block.counts[i]);
    });
    std::vector<std::pair<std::uint64_t, std::uint32_t>> expected = {
        {1, 1}, {2, 1}, {499, 1}, {500, 3}, {600, 3}, {700, 3}, {900, 7}, {1000, 7}};
    if (touching) {
      expected.erase(expected.begin() + 2);
      expected[2].second = 4;  // 1 + 3, summed by the merge
    }
    INFO("touching=" << touching);
    CHECK(got == expected);
    CHECK(totals.distinct == expected.size());
    CHECK(totals.total_kmers == 3 + 9 + 14);
  }
}

TEST_CASE("runs of workers in key bands merge on threads as on one", "[kmer][devices]") {
  // Three workers, three rounds each: a worker's runs overlap one another,
  // never another worker's. Some stay in memory, the rest spill.
  std::mt19937_64 rng(seqfuse::kmer::test::test_seed());
  for (int k : {21, 40}) {
    const int w = words_for_k(k);
    RunStore store(k, std::size_t{256} << 10, std::filesystem::temp_directory_path().string());
    for (int round = 0; round < 3; ++round) {
      for (std::uint64_t band = 0; band < 3; ++band) {
        std::vector<std::array<std::uint64_t, 2>> keys(4000);
        for (auto& key : keys)
          key = w == 2 ? std::array<std::uint64_t, 2>{band, rng() % 50000}
                       : std::array<std::uint64_t, 2>{band << 36 | (rng() % 50000), 0};
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        SortedRun run;
        run.k = k;
        for (const auto& key : keys) {
          run.words.insert(run.words.end(), key.begin(), key.begin() + w);
          run.counts.push_back(static_cast<std::uint32_t>(1 + rng() % 5));
        }
        store.take(std::move(run));
      }
    }
    REQUIRE(!store.spilled_runs().empty());
    const auto merged = [&](unsigned threads) {
      MergeOptions options;
      options.read_buffer_bytes = 4096;
      options.threads = threads;
      options.parallel_from = 0;
      options.lookahead_bytes = 32 << 10;  // many ranges
      std::vector<std::uint64_t> words;
      std::vector<std::uint32_t> counts;
      const MergeTotals totals = merge_blocks(store, options, [&](const RecordBlock& block) {
        words.insert(words.end(), block.words, block.words + block.size * w);
        counts.insert(counts.end(), block.counts, block.counts + block.size);
      });
      return std::tuple(words, counts, totals.total_kmers, totals.distinct);
    };
    INFO("k=" << k);
    const auto serial = merged(1);
    CHECK(merged(3) == serial);
    CHECK(merged(8) == serial);
  }
}

TEST_CASE("worker engine parameters share a device among its workers", "[kmer][devices]") {
  EngineParams base;
  base.k = 31;
  base.memory_budget = 1200;
  base.kmer_bound = 1000 + 100;
  base.tunables.gpu_device_share = 0.8;
  base.threads = 10;
  const std::vector<int> devices = {0, 1, 0, 2};
  KeyRange range;
  range.from = {7, 0};
  const EngineParams a = worker_engine_params(base, devices, 0, range, 100);
  CHECK(a.device_index == 0);
  CHECK(a.keys == range);
  CHECK(a.memory_budget == 600);
  CHECK(a.tunables.gpu_device_share == Approx(0.4));
  CHECK(a.kmer_bound == 250 + 125 + 100);  // its quarter, half as much again, the slack
  CHECK(a.threads == 2);                   // the host threads shared by the four workers
  const EngineParams b = worker_engine_params(base, devices, 1, range, 100);
  CHECK(b.device_index == 1);
  CHECK(b.memory_budget == 1200);
  CHECK(b.tunables.gpu_device_share == Approx(0.8));
  // Two workers: 1.5 halves would pass the whole bound, which caps it.
  CHECK(worker_engine_params(base, {0, 1}, 0, range, 100).kmer_bound == 500 + 250 + 100);
  CHECK(worker_engine_params(base, {0}, 0, range, 100).kmer_bound == 1100);
  base.threads = 3;  // fewer threads than workers: one each
  CHECK(worker_engine_params(base, devices, 0, range, 100).threads == 1);
  base.kmer_bound = 0;  // unknown stays unknown
  CHECK(worker_engine_params(base, devices, 3, range, 100).kmer_bound == 0);
  CHECK(add_frequencies({{{1, 5}, {3, 2}}, {}, {{2, 1}, {3, 4}}}) ==
        std::vector<std::pair<std::uint32_t, std::uint64_t>>{{1, 5}, {2, 1}, {3, 6}});
}

TEST_CASE("kmer-count on 1, 2 and 3 stand-in GPU workers writes the CPU engine's bytes",
          "[kmer][devices]") {
  const TempDir dir;
  std::mt19937_64 rng(seqfuse::kmer::test::test_seed());
  const std::vector<std::string> inputs = write_inputs(dir, random_reads(rng, 900, 260));
  for (int k : {5, 21, 33}) {
    for (bool canonical : {true, false}) {
      for (bool histo_only : {false, true}) {
        CountOptions options;
        options.k = k;
        options.canonical = canonical;
        options.inputs = inputs;
        if (!histo_only) {
          options.lower_count = 2;
          options.upper_count = 40;
        }
        const Outputs cpu = count(dir, "cpu", options, {}, {}, histo_only);
        CHECK_FALSE(cpu.histo.empty());
        // Stand-ins: FASTQ text like the GPU engine, parsed batches only,
        // and the CPU engine itself (no histogram of its own).
        for (int kind : {0, 1, 2}) {
          // A small engine budget makes several rounds per worker: runs
          // that overlap within a worker, and histograms not all given.
          for (std::size_t budget : {std::size_t{0}, std::size_t{1} << 15}) {
            for (const std::vector<int>& devices :
                 {std::vector<int>{0}, std::vector<int>{0, 0}, std::vector<int>{0, 1, 0}}) {
              INFO("k=" << k << " canonical=" << canonical << " histo_only=" << histo_only
                        << " stand-in=" << kind << " budget=" << budget
                        << " workers=" << devices.size());
              StandIn stand_in{kind == 0, budget};
              stand_in.plain_cpu_engine = kind == 2;
              const Outputs got =
                  count(dir, "gpu", options, devices, stand_in_engines(stand_in), histo_only);
              CHECK(got.histo == cpu.histo);
              CHECK(got.db == cpu.db);
              CHECK(got.dump == cpu.dump);
              CHECK(got.stats.reads == cpu.stats.reads);
              CHECK(got.stats.bases == cpu.stats.bases);
              CHECK(got.stats.totals.total_kmers == cpu.stats.totals.total_kmers);
              CHECK(got.stats.totals.distinct == cpu.stats.totals.distinct);
              CHECK(got.stats.kept == cpu.stats.kept);
              CHECK(got.stats.device.devices == devices);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("stand-in GPU workers that spill their runs still write the CPU engine's bytes",
          "[kmer][devices]") {
  const TempDir dir;
  std::mt19937_64 rng(seqfuse::kmer::test::test_seed());
  std::vector<std::string> reads;
  for (int i = 0; i < 14000; ++i) {
    std::string read(150, 'A');
    for (char& c : read) c = "ACGT"[rng() & 3];
    reads.push_back(read);
  }
  const std::vector<std::string> inputs = write_inputs(dir, reads);
  CountOptions options;
  options.k = 31;
  options.inputs = inputs;
  const Outputs cpu = count(dir, "cpu", options, {}, {}, false);
  std::vector<EngineParams> made;
  std::mutex made_mutex;
  const Outputs got =
      count(dir, "gpu", options, {0, 1, 2},
            stand_in_engines({true, std::size_t{8} << 20}, &made, &made_mutex), false);
  CHECK(got.stats.spilled_runs > 0);
  CHECK(got.db == cpu.db);
  CHECK(got.dump == cpu.dump);
  CHECK(got.histo == cpu.histo);
  // One engine per worker, on its device, with its own key range.
  REQUIRE(made.size() == 3);
  std::sort(made.begin(), made.end(), [](const EngineParams& a, const EngineParams& b) {
    return a.device_index < b.device_index;
  });
  CHECK(made[0].keys.from == KmerKey{});
  CHECK(made[0].keys.to == made[1].keys.from);
  CHECK(made[1].keys.to == made[2].keys.from);
  CHECK(made[2].keys.to_end);
  CHECK(made[0].keys.to < made[1].keys.to);
  CHECK(made[0].run_gate != nullptr);
  CHECK(made[0].run_gate == made[2].run_gate);
}

TEST_CASE("a failing stand-in GPU worker fails the count and leaves no output", "[kmer][devices]") {
  const TempDir dir;
  std::mt19937_64 rng(seqfuse::kmer::test::test_seed());
  const std::vector<std::string> inputs = write_inputs(dir, random_reads(rng, 600, 200));
  CountOptions options;
  options.k = 21;
  options.inputs = inputs;
  for (bool text : {true, false}) {
    StandIn failing{text};
    failing.failing_device = 7;
    CHECK_THROWS_WITH(count(dir, "fail", options, {0, 7, 0}, stand_in_engines(failing), false),
                      "stand-in device failed");
    StandIn unbindable{text};
    unbindable.unbindable_device = 7;
    CHECK_THROWS_WITH(count(dir, "fail", options, {0, 0, 7}, stand_in_engines(unbindable), true),
                      "stand-in device cannot start");
    CHECK_FALSE(std::filesystem::exists(dir.file("fail.kdb")));
    CHECK_FALSE(std::filesystem::exists(dir.file("fail.dump")));
    CHECK_FALSE(std::filesystem::exists(dir.file("fail.histo")));
  }
}

TEST_CASE("malformed FASTQ stops 1, 2 and 3 stand-in GPU workers with one message",
          "[kmer][devices]") {
  const TempDir dir;
  std::string text;
  for (int i = 0; i < 40; ++i) text += "@r\nACGTACGTAC\n+\nIIIIIIIIII\n";
  text += "@bad\nACGTACGTAC\n+\nIII\n";
  for (int i = 0; i < 40; ++i) text += "@r\nACGTACGTAC\n+\nIIIIIIIIII\n";
  std::ofstream(dir.file("bad.fq")) << text;
  std::ofstream(dir.file("good.fa")) << ">g\nACGTTTGACA\n";
  CountOptions options;
  options.k = 5;
  options.inputs = {dir.file("good.fa").string(), dir.file("bad.fq").string(),
                    dir.file("missing.fq").string()};
  for (bool stand_in_text : {true, false}) {
    std::string one;
    try {
      (void)count(dir, "bad", options, {0}, stand_in_engines({stand_in_text}), false);
    } catch (const seqfuse::Error& e) {
      one = e.what();
    }
    INFO("text=" << stand_in_text << " one worker: " << one);
    CHECK(one.find("record 41") != std::string::npos);
    for (const std::vector<int>& devices : {std::vector<int>{0, 0}, std::vector<int>{0, 1, 2}})
      CHECK_THROWS_WITH(
          count(dir, "bad", options, devices, stand_in_engines({stand_in_text}), false), one);
    CHECK_FALSE(std::filesystem::exists(dir.file("bad.kdb")));
  }
}
