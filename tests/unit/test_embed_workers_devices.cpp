// The many-worker embed job (models/embed_workers.hpp) on the CPU: CPU
// engines stand in for GPU workers (a no-op device bind fakes the devices),
// so CI runs the same dealing, rendezvous and in-order writing that
// --device gpu:0,1,... runs. Every format, pooling and --layers choice must
// give the one-engine job's bytes with any number of workers; a worker or
// writer that throws must fail the run without hanging and without an
// output; the batch size the engines agree on is asked only once all are
// built; and workers never run more windows ahead of the writer than asked.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/batch.hpp"
#include "models/cpu_forward.hpp"
#include "models/embed_job.hpp"
#include "models/embed_outputs.hpp"
#include "models/embed_plan.hpp"
#include "models/embed_workers.hpp"
#include "models/esm_weights.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

// Random proteins of mixed lengths: single residues, a few long ones past
// the batch size (they come alone), many short ones, and ties in length (the
// sort keeps their input order).
ProteinSet random_input(std::uint64_t seed, std::size_t count) {
  std::mt19937_64 rng(seed);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1), kind(0, 9),
      short_length(1, 60), long_length(61, 300);
  seqfuse::io::SequenceBatch batch;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t k = kind(rng);
    const std::size_t n = k == 0 ? 1 : k < 8 ? short_length(rng) : long_length(rng);
    std::string seq;
    for (std::size_t r = 0; r < n; ++r) seq += letters[letter(rng)];
    std::string name = "p";
    name += std::to_string(i);
    batch.push_back(name, "", seq);
  }
  return tokenize_input(batch, "random", 1022);
}

const EsmModel& model() {
  static const EsmModel m = load_esm_model(embed_data_dir() / "esm_hd24_fp16_saved");
  return m;
}

std::size_t hidden() {
  return static_cast<std::size_t>(model().config.hidden_size);
}

EmbedWorkers cpu_workers(std::vector<int> devices) {
  EmbedWorkers workers;
  workers.devices = std::move(devices);
  workers.make_engine = [](std::size_t, int) { return std::make_unique<CpuEsmEngine>(model(), 1); };
  workers.bind = [](int) {};
  return workers;
}

// The output files of one run, by name, read back after commit.
std::map<std::string, std::string> files_of(const TempDir& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    files[entry.path().filename().string()] = slurp(entry.path());
  return files;
}

std::string file_name(EmbedFormat format) {
  return format == EmbedFormat::tsv ? "e.tsv" : format == EmbedFormat::npy ? "e.npy" : "e.h5";
}

// The one-engine job's files for `job` and `format`.
std::map<std::string, std::string> one_engine_files(const EmbedJob& job, const ProteinSet& input,
                                                    EmbedFormat format) {
  TempDir dir;
  CpuEsmEngine engine(model(), 1);
  auto writer = make_embedding_writer(format, dir.file(file_name(format)).string(),
                                      output_shape(input, job.readout, hidden()));
  run_embed_job(job, engine, input, hidden(), *writer);
  writer->commit();
  return files_of(dir);
}

std::map<std::string, std::string> worker_files(const EmbedJob& job, const EmbedWorkers& workers,
                                                const ProteinSet& input, EmbedFormat format,
                                                EmbedStats* stats = nullptr) {
  TempDir dir;
  auto writer = make_embedding_writer(format, dir.file(file_name(format)).string(),
                                      output_shape(input, job.readout, hidden()));
  const EmbedStats got = run_embed_job_on_workers(job, workers, input, hidden(), *writer);
  writer->commit();
  if (stats) *stats = got;
  return files_of(dir);
}

// An engine that passes batches to a CPU engine, and throws on the run's
// batch number `fail_at` (counted over every engine sharing `batches`), so
// the failure comes mid-run whichever worker takes that batch.
class FlakyEngine final : public EmbeddingEngine {
 public:
  FlakyEngine(std::atomic<std::size_t>& batches, std::size_t fail_at)
      : inner_(model(), 1), batches_(batches), fail_at_(fail_at) {}
  [[nodiscard]] std::string name() const override { return "flaky"; }
  void reserve(std::size_t longest, std::size_t tokens) override {
    inner_.reserve(longest, tokens);
  }
  void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout& readout,
             std::span<Embedding> out) override {
    if (batches_++ == fail_at_) throw seqfuse::Error("a device fell off the bus");
    inner_.embed(sequences, readout, out);
  }

 private:
  CpuEsmEngine inner_;
  std::atomic<std::size_t>& batches_;
  std::size_t fail_at_;
};

// A writer that throws at its n-th sequence, or counts what it got.
class CountingWriter final : public EmbeddingWriter {
 public:
  explicit CountingWriter(std::size_t fail_at = SIZE_MAX) : fail_at_(fail_at) {}
  void write(const SequenceRows&) override {
    if (written_.load() == fail_at_) throw seqfuse::Error("disk full");
    ++written_;
  }
  void commit() override { committed = true; }
  [[nodiscard]] std::size_t written() const { return written_.load(); }
  bool committed = false;

 private:
  std::size_t fail_at_;
  std::atomic<std::size_t> written_{0};
};

}  // namespace

TEST_CASE("embed workers: any number of fake devices writes the one-engine job's bytes",
          "[embed][devices]") {
  const ProteinSet input = random_input(11, 160);
  struct Case {
    EmbedFormat format;
    Pooling pooling;
    std::vector<int> layers;
  };
  const int n = model().config.num_layers;
  const std::vector<Case> cases = {
      {EmbedFormat::tsv, Pooling::mean, {n}},      {EmbedFormat::npy, Pooling::bos, {0, n}},
      {EmbedFormat::h5, Pooling::none, {n, 1}},    {EmbedFormat::npy, Pooling::none, {1}},
      {EmbedFormat::h5, Pooling::mean, {0, 1, n}}, {EmbedFormat::tsv, Pooling::none, {n}},
  };
  const std::vector<std::vector<int>> device_lists = {{0}, {0, 0}, {0, 1, 2}, {3, 1, 3, 0}};
  for (const Case& c : cases) {
    EmbedJob job;
    job.readout = {c.layers, c.pooling};
    job.toks_per_batch = 300;  // many batches, the long sequences alone
    // Several windows: a few dozen sequences each, fewer with --pool none.
    job.window_floats = 30 * 40 * c.layers.size() * hidden();
    const auto want = one_engine_files(job, input, c.format);
    REQUIRE(want.size() == (c.format == EmbedFormat::npy ? 2u : 1u));
    for (const auto& devices : device_lists)
      for (const std::size_t in_flight : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
        INFO(file_name(c.format) << " pool " << int(c.pooling) << ", " << c.layers.size()
                                 << " layers, " << devices.size() << " workers, " << in_flight
                                 << " windows in flight");
        EmbedWorkers workers = cpu_workers(devices);
        workers.windows_in_flight = in_flight;
        EmbedStats stats;
        CHECK(worker_files(job, workers, input, c.format, &stats) == want);
        CHECK(stats.sequences == input.size());
        CHECK(stats.tokens == input.tokens);
        CHECK(stats.batches > 20);
      }
  }
}

TEST_CASE("embed workers: the batches are the one-engine job's, dealt in its order",
          "[embed][devices]") {
  const ProteinSet input = random_input(5, 120);
  EmbedJob job;
  job.readout = {{model().config.num_layers}, Pooling::mean};
  job.toks_per_batch = 200;
  job.window_floats = 25 * hidden();

  // The one-engine plan, batch by batch, as sets of input indices.
  std::vector<std::vector<std::size_t>> planned;
  WindowPlan plan;
  for (std::size_t first = 0; first < input.size();) {
    const std::size_t last = window_end(input, first, job.readout, hidden(), job.window_floats);
    plan_window(input, first, last, job.toks_per_batch, plan);
    for (std::size_t b = 0; b < plan.batches(); ++b)
      planned.emplace_back(plan.batch(b).begin(), plan.batch(b).end());
    first = last;
  }

  // Batches as the engines saw them: each sequence is known by its tokens'
  // address in `input`.
  std::map<const std::int32_t*, std::size_t> index_of;
  for (std::size_t i = 0; i < input.size(); ++i) index_of[input.proteins[i].ids.data()] = i;
  std::mutex mutex;
  std::vector<std::vector<std::size_t>> seen;
  class Recorder final : public EmbeddingEngine {
   public:
    explicit Recorder(const std::function<void(std::span<const std::span<const std::int32_t>>)>& f)
        : record_(f) {}
    std::string name() const override { return "recorder"; }
    void reserve(std::size_t, std::size_t) override {}
    void embed(std::span<const std::span<const std::int32_t>> sequences, const Readout&,
               std::span<Embedding> out) override {
      record_(sequences);
      for (Embedding& e : out) e = {1, std::vector<float>(48, 0.5f)};
    }

   private:
    std::function<void(std::span<const std::span<const std::int32_t>>)> record_;
  };
  const auto record = [&](std::span<const std::span<const std::int32_t>> sequences) {
    std::vector<std::size_t> batch;
    for (const auto& s : sequences) batch.push_back(index_of.at(s.data()));
    std::lock_guard lock(mutex);
    seen.push_back(batch);
  };
  EmbedWorkers workers;
  workers.devices = {2, 0, 3, 2};
  // Catch2 asserts on this thread only: the workers leave notes.
  std::atomic<bool> wrong_device{false};
  std::multiset<int> bound;
  thread_local int bound_here = -1;
  workers.make_engine = [&](std::size_t worker, int device) {
    if (device != workers.devices[worker] || bound_here != device) wrong_device = true;
    return std::make_unique<Recorder>(record);
  };
  workers.bind = [&](int device) {
    bound_here = device;
    std::lock_guard lock(mutex);
    bound.insert(device);
  };
  CountingWriter writer;
  const EmbedStats stats = run_embed_job_on_workers(job, workers, input, hidden(), writer);
  CHECK(writer.written() == input.size());
  CHECK(stats.batches == planned.size());
  // Every planned batch ran once, with the sequences the one-engine job puts
  // in it (in its order).
  std::sort(seen.begin(), seen.end());
  std::sort(planned.begin(), planned.end());
  CHECK(seen == planned);
  CHECK_FALSE(wrong_device.load());
  CHECK(bound == std::multiset<int>{0, 2, 2, 3});
}

TEST_CASE("embed workers: a worker that throws fails the run, nothing is written",
          "[embed][devices]") {
  const ProteinSet input = random_input(3, 120);
  EmbedJob job;
  job.readout = {{model().config.num_layers}, Pooling::none};
  job.toks_per_batch = 250;
  job.window_floats = 20 * 40 * hidden();
  TempDir dir;
  const std::string out = dir.file("e.npy").string();

  std::atomic<std::size_t> batches{0};
  SECTION("mid-run, on the run's fifth batch") {
    EmbedWorkers workers = cpu_workers({0, 1, 2});
    workers.make_engine = [&batches](std::size_t, int) {
      return std::make_unique<FlakyEngine>(batches, 4);
    };
    {
      auto writer =
          make_embedding_writer(EmbedFormat::npy, out, output_shape(input, job.readout, hidden()));
      CHECK_THROWS_WITH(run_embed_job_on_workers(job, workers, input, hidden(), *writer),
                        "a device fell off the bus");
    }  // never committed
    CHECK(std::filesystem::is_empty(dir.path()));
  }
  SECTION("on the first batch, with one window in flight") {
    EmbedWorkers workers = cpu_workers({0, 0});
    workers.windows_in_flight = 1;
    workers.make_engine = [&batches](std::size_t, int) {
      return std::make_unique<FlakyEngine>(batches, 0);
    };
    CountingWriter writer;
    CHECK_THROWS_WITH(run_embed_job_on_workers(job, workers, input, hidden(), writer),
                      "a device fell off the bus");
    CHECK(writer.written() < input.size());
  }
  SECTION("while its engine is built: the others stop waiting for it") {
    EmbedWorkers workers = cpu_workers({0, 1, 2, 3});
    workers.make_engine = [](std::size_t worker, int) -> std::unique_ptr<EmbeddingEngine> {
      if (worker == 3) throw seqfuse::Error("the weights do not fit gpu:3");
      return std::make_unique<CpuEsmEngine>(model(), 1);
    };
    bool ready = false;
    workers.engines_ready = [&ready] { ready = true; };
    CountingWriter writer;
    CHECK_THROWS_WITH(run_embed_job_on_workers(job, workers, input, hidden(), writer),
                      "the weights do not fit gpu:3");
    CHECK(writer.written() == 0);
    CHECK_FALSE(ready);
  }
  SECTION("every worker") {
    EmbedWorkers workers = cpu_workers({0, 1});
    std::atomic<std::size_t> first{0}, second{0};
    workers.make_engine = [&](std::size_t worker, int) {
      return std::make_unique<FlakyEngine>(worker == 0 ? first : second, 0);
    };
    CountingWriter writer;
    CHECK_THROWS_WITH(run_embed_job_on_workers(job, workers, input, hidden(), writer),
                      "a device fell off the bus");
    CHECK(writer.written() == 0);
  }
}

TEST_CASE("embed workers: a writer that throws stops the workers", "[embed][devices]") {
  const ProteinSet input = random_input(4, 150);
  EmbedJob job;
  job.readout = {{model().config.num_layers}, Pooling::mean};
  job.toks_per_batch = 200;
  job.window_floats = 20 * hidden();
  std::atomic<std::size_t> batches{0};
  EmbedWorkers workers = cpu_workers({0, 1, 2});
  workers.windows_in_flight = 2;
  class Counting final : public EmbeddingEngine {
   public:
    explicit Counting(std::atomic<std::size_t>& n) : inner_(model(), 1), n_(n) {}
    std::string name() const override { return "counting"; }
    void reserve(std::size_t a, std::size_t b) override { inner_.reserve(a, b); }
    void embed(std::span<const std::span<const std::int32_t>> s, const Readout& r,
               std::span<Embedding> out) override {
      ++n_;
      inner_.embed(s, r, out);
    }

   private:
    CpuEsmEngine inner_;
    std::atomic<std::size_t>& n_;
  };
  workers.make_engine = [&batches](std::size_t, int) {
    return std::make_unique<Counting>(batches);
  };
  CountingWriter writer(30);  // inside the second window
  CHECK_THROWS_WITH(run_embed_job_on_workers(job, workers, input, hidden(), writer), "disk full");
  CHECK_FALSE(writer.committed);
  // The workers stopped within the windows they were allowed: far from all.
  CountingWriter all;
  const EmbedStats stats = run_embed_job_on_workers(job, cpu_workers({0}), input, hidden(), all);
  CHECK(batches.load() < stats.batches);
}

TEST_CASE("embed workers: the batch size is the smallest preference, asked once all are built",
          "[embed][devices]") {
  const ProteinSet input = random_input(8, 100);
  const std::vector<std::size_t> preferences = {700, 260, 900};
  std::atomic<std::size_t> built{0};
  std::atomic<bool> asked_early{false};
  class Preferring final : public EmbeddingEngine {
   public:
    Preferring(std::size_t preferred, std::atomic<std::size_t>& built, std::atomic<bool>& early)
        : inner_(model(), 1), preferred_(preferred), built_(built), early_(early) {}
    std::string name() const override { return "preferring"; }
    std::size_t preferred_batch_tokens() const override {
      if (built_.load() != 3) early_ = true;
      return preferred_;
    }
    void reserve(std::size_t a, std::size_t b) override { inner_.reserve(a, b); }
    void embed(std::span<const std::span<const std::int32_t>> s, const Readout& r,
               std::span<Embedding> out) override {
      inner_.embed(s, r, out);
    }

   private:
    CpuEsmEngine inner_;
    std::size_t preferred_;
    std::atomic<std::size_t>& built_;
    std::atomic<bool>& early_;
  };
  EmbedJob job;
  job.readout = {{0, model().config.num_layers}, Pooling::mean};
  job.toks_per_batch = 5;  // replaced by the engines' choice
  job.window_floats = 30 * 2 * hidden();
  EmbedWorkers workers = cpu_workers({0, 1, 2});
  workers.engines_choose_batch = true;
  workers.make_engine = [&](std::size_t worker, int) {
    // Later workers finish building first: the first asks last.
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * (2 - worker)));
    auto engine = std::make_unique<Preferring>(preferences[worker], built, asked_early);
    ++built;
    return engine;
  };
  std::size_t ready_calls = 0;
  workers.engines_ready = [&] { ++ready_calls; };
  EmbedStats stats;
  const auto got = worker_files(job, workers, input, EmbedFormat::npy, &stats);
  CHECK_FALSE(asked_early.load());
  CHECK(ready_calls == 1);
  job.toks_per_batch = 260;
  CHECK(got == one_engine_files(job, input, EmbedFormat::npy));
  EmbedStats one;
  CountingWriter writer;
  CpuEsmEngine engine(model(), 1);
  one = run_embed_job(job, engine, input, hidden(), writer);
  CHECK(stats.batches == one.batches);
}

TEST_CASE("embed workers: no worker runs more windows ahead of the writer than allowed",
          "[embed][devices]") {
  const ProteinSet input = random_input(9, 200);
  EmbedJob job;
  job.readout = {{model().config.num_layers}, Pooling::mean};
  job.toks_per_batch = 120;
  job.window_floats = 15 * hidden();  // ~14 windows of 15 sequences
  // Window of each input sequence, and where each window ends.
  std::vector<std::size_t> window_of(input.size()), window_last;
  for (std::size_t first = 0; first < input.size();) {
    const std::size_t last = window_end(input, first, job.readout, hidden(), job.window_floats);
    for (std::size_t i = first; i < last; ++i) window_of[i] = window_last.size();
    window_last.push_back(last);
    first = last;
  }
  REQUIRE(window_last.size() > 8);
  std::map<const std::int32_t*, std::size_t> index_of;
  for (std::size_t i = 0; i < input.size(); ++i) index_of[input.proteins[i].ids.data()] = i;

  for (const std::size_t in_flight : {1, 2, 3}) {
    CountingWriter writer;
    std::atomic<bool> too_far{false};
    class Watching final : public EmbeddingEngine {
     public:
      explicit Watching(std::function<void(std::size_t)> check)
          : inner_(model(), 1), check_(std::move(check)) {}
      std::string name() const override { return "watching"; }
      void reserve(std::size_t a, std::size_t b) override { inner_.reserve(a, b); }
      void embed(std::span<const std::span<const std::int32_t>> s, const Readout& r,
                 std::span<Embedding> out) override {
        check_(reinterpret_cast<std::uintptr_t>(s[0].data()));
        inner_.embed(s, r, out);
      }

     private:
      CpuEsmEngine inner_;
      std::function<void(std::size_t)> check_;
    };
    const auto check = [&](std::uintptr_t first_tokens) {
      const std::size_t w =
          window_of[index_of.at(reinterpret_cast<const std::int32_t*>(first_tokens))];
      // Windows the writer has finished: it counts a window's sequences
      // before the workers may move past it, so this never runs behind what
      // the workers were allowed when they took the batch.
      const std::size_t written = writer.written();
      const auto written_windows = static_cast<std::size_t>(
          std::upper_bound(window_last.begin(), window_last.end(), written) - window_last.begin());
      if (w >= written_windows + in_flight) too_far = true;
    };
    EmbedWorkers workers = cpu_workers({0, 1, 2, 3});
    workers.windows_in_flight = in_flight;
    workers.make_engine = [&check](std::size_t, int) { return std::make_unique<Watching>(check); };
    const EmbedStats stats = run_embed_job_on_workers(job, workers, input, hidden(), writer);
    CHECK(stats.sequences == input.size());
    CHECK(writer.written() == input.size());
    CHECK_FALSE(too_far.load());
  }
}

TEST_CASE("embed workers: progress counts up to every sequence, an empty input needs no batch",
          "[embed][devices]") {
  const ProteinSet input = random_input(2, 90);
  EmbedJob job;
  job.readout = {{model().config.num_layers}, Pooling::bos};
  job.toks_per_batch = 150;
  job.window_floats = 10 * hidden();
  std::vector<std::size_t> progress;
  job.progress = [&progress](std::size_t done) { progress.push_back(done); };
  CountingWriter writer;
  run_embed_job_on_workers(job, cpu_workers({0, 1}), input, hidden(), writer);
  REQUIRE_FALSE(progress.empty());
  CHECK(std::is_sorted(progress.begin(), progress.end()));
  CHECK(progress.back() == input.size());

  const ProteinSet empty = tokenize_input(seqfuse::io::SequenceBatch(), "empty", 1022);
  CountingWriter none;
  const EmbedStats stats =
      run_embed_job_on_workers(job, cpu_workers({0, 1}), empty, hidden(), none);
  CHECK(stats.sequences == 0);
  CHECK(stats.batches == 0);
  CHECK_THROWS_WITH(run_embed_job_on_workers(job, cpu_workers({}), input, hidden(), none),
                    "internal: an embed job with no worker");
}

TEST_CASE("embed plan: windows, longest-first batches and the reserved size", "[embed][devices]") {
  ProteinSet input;
  for (const std::size_t tokens : {5, 9, 3, 9, 20, 4}) {
    TokenizedProtein p;
    p.ids.assign(tokens, 4);
    p.residues = tokens - 2;
    input.ids.push_back(std::to_string(input.size()));
    input.proteins.push_back(p);
    input.tokens += tokens;
    input.longest = std::max(input.longest, tokens);
  }
  WindowPlan plan;
  plan_window(input, 0, input.size(), 18, plan);
  // Longest first, ties in input order; a sequence past the size comes alone.
  CHECK(plan.order == std::vector<std::size_t>{4, 1, 3, 0, 5, 2});
  CHECK(plan.starts == std::vector<std::size_t>{0, 1, 3, 6});
  CHECK(plan.tokens == std::vector<std::size_t>{20, 18, 12});
  plan_window(input, 2, 5, 0, plan);  // 0 counts as 1: one sequence a batch
  CHECK(plan.order == std::vector<std::size_t>{4, 3, 2});
  CHECK(plan.batches() == 3);
  CHECK(plan.batch(1).size() == 1);

  const Readout mean{{1}, Pooling::mean}, none{{1, 2}, Pooling::none};
  CHECK(result_floats(input.proteins[0], mean, 2) == 2);
  CHECK(result_floats(input.proteins[0], none, 2) == 5 * 2 * 2);
  CHECK(window_end(input, 0, mean, 2, 7) == 3);  // 2 + 2 + 2 floats fit 7
  CHECK(window_end(input, 3, mean, 2, 7) == 6);
  CHECK(window_end(input, 0, none, 2, 7) == 1);  // one sequence at least
  CHECK(window_end(input, 5, none, 2, 1000) == 6);

  CHECK(reserve_tokens(input, 18) == 20);     // never below the longest
  CHECK(reserve_tokens(input, 1000) == 120);  // never above all padded to the longest
  CHECK(reserve_tokens(input, 0) == 20);
}
