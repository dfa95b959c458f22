// fastq-trim on several GPU workers, on the CPU: the dealing engine
// (device_engines.hpp) with fake engines, and whole runs whose "GPU
// workers" are CPU engines behind fake devices, which must write the bytes
// and reports of the CPU run, for one worker and for several, and leave no
// output when a worker fails.
#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "preprocess/device_engines.hpp"
#include "preprocess/gpu_engine.hpp"
#include "preprocess/trim_run.hpp"
#include "test_data.hpp"
#include "test_temp_dir.hpp"

namespace pp = seqfuse::preprocess;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

// Says which engine trimmed a chunk (in out1) and counts the chunk in
// reads_in; finish() adds its number to bases_in. `gate`, when set, holds
// the engine inside trim() until opened.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool entered = false, open = false;
};
class TaggingEngine final : public pp::TrimEngine {
 public:
  explicit TaggingEngine(int id, Gate* gate = nullptr) : id_(id), gate_(gate) {}
  [[nodiscard]] std::string name() const override { return "tag"; }
  void trim(pp::ReadChunk&, pp::ReadChunk*, pp::ChunkOutput& out, pp::TrimTally& tally) override {
    if (gate_ != nullptr) {
      std::unique_lock lock(gate_->mutex);
      gate_->entered = true;
      gate_->changed.notify_all();
      gate_->changed.wait(lock, [this] { return gate_->open; });
    }
    if (fail_) throw seqfuse::Error("engine " + std::to_string(id_) + " failed");
    out.out1 += std::to_string(id_);
    ++tally.reads_in;
  }
  void finish(pp::TrimTally& tally) override { tally.bases_in += 100U * (id_ + 1U); }
  bool fail_ = false;

 private:
  int id_;
  Gate* gate_;
};

std::vector<std::unique_ptr<pp::TrimEngine>> tagging_engines(int n) {
  std::vector<std::unique_ptr<pp::TrimEngine>> engines;
  for (int i = 0; i < n; ++i) engines.push_back(std::make_unique<TaggingEngine>(i));
  return engines;
}

std::string deal(pp::TrimEngine& engine, int chunks, pp::TrimTally& tally) {
  std::string order;
  pp::ReadChunk reads;
  for (int i = 0; i < chunks; ++i) {
    pp::ChunkOutput out;
    engine.trim(reads, nullptr, out, tally);
    order += out.out1;
  }
  return order;
}

}  // namespace

TEST_CASE("fastq-trim deals chunks to every worker's engine in turn", "[preprocess][devices]") {
  auto engine = pp::deal_to_engines(tagging_engines(3), "gpu:0,1,2");
  CHECK(engine->name() == "gpu:0,1,2");
  pp::TrimTally tally;
  CHECK(deal(*engine, 7, tally) == "0120120");
  CHECK(tally.reads_in == 7);
  engine->finish(tally);
  CHECK(tally.bases_in == 100 + 200 + 300);  // every engine's own counts

  auto one = pp::deal_to_engines(tagging_engines(1), "gpu:0");
  CHECK(deal(*one, 3, tally) == "000");
  CHECK_THROWS_AS(pp::deal_to_engines({}, "gpu:"), seqfuse::Error);
}

TEST_CASE("fastq-trim gives a busy worker no chunk while another is free",
          "[preprocess][devices]") {
  Gate gate;
  std::vector<std::unique_ptr<pp::TrimEngine>> engines;
  engines.push_back(std::make_unique<TaggingEngine>(0, &gate));
  engines.push_back(std::make_unique<TaggingEngine>(1));
  engines.push_back(std::make_unique<TaggingEngine>(2));
  auto engine = pp::deal_to_engines(std::move(engines), "gpu:0,1,2");
  pp::TrimTally held_tally, tally;
  std::thread held([&] {
    pp::ReadChunk reads;
    pp::ChunkOutput out;
    engine->trim(reads, nullptr, out, held_tally);
    CHECK(out.out1 == "0");
  });
  {
    std::unique_lock lock(gate.mutex);
    gate.changed.wait(lock, [&] { return gate.entered; });
  }
  // Engine 0 holds a chunk: the next ones go to 1 and 2 in turn.
  const std::string order = deal(*engine, 4, tally);
  {
    const std::lock_guard lock(gate.mutex);
    gate.open = true;
  }
  gate.changed.notify_all();
  held.join();
  CHECK(order == "1212");
  // All free again: engine 0 is next after 2.
  CHECK(deal(*engine, 3, tally) == "012");
}

TEST_CASE("fastq-trim: a failing worker's chunk fails, the others go on", "[preprocess][devices]") {
  auto engines = tagging_engines(2);
  auto* second = static_cast<TaggingEngine*>(engines[1].get());
  second->fail_ = true;
  auto engine = pp::deal_to_engines(std::move(engines), "gpu:0,1");
  pp::TrimTally tally;
  CHECK(deal(*engine, 1, tally) == "0");
  CHECK_THROWS_WITH(deal(*engine, 1, tally), "engine 1 failed");
  second->fail_ = false;
  // The failed chunk gave its place back: both engines are free.
  CHECK(deal(*engine, 2, tally) == "01");
}

TEST_CASE("fastq-trim makes each worker's engine on its thread with its device current",
          "[preprocess][devices]") {
  thread_local int current = -1;
  const pp::DeviceEngineFactory make = [](int device) -> std::unique_ptr<pp::TrimEngine> {
    if (current != device) throw std::logic_error("wrong device current");
    return std::make_unique<TaggingEngine>(device);
  };
  const seqfuse::BindDevice bind = [](int device) { current = device; };
  const std::vector<int> devices = {2, 0, 2, 1};
  auto engines = pp::make_device_engines(devices, make, bind);
  REQUIRE(engines.size() == 4);
  auto engine = pp::deal_to_engines(std::move(engines), "gpu:2,0,2,1");
  pp::TrimTally tally;
  CHECK(deal(*engine, 4, tally) == "2021");  // in worker order

  const pp::DeviceEngineFactory failing = [](int device) -> std::unique_ptr<pp::TrimEngine> {
    if (device == 1) throw seqfuse::Error("device 1 is gone");
    return std::make_unique<TaggingEngine>(device);
  };
  CHECK_THROWS_WITH(pp::make_device_engines(devices, failing, bind), "device 1 is gone");
}

namespace {

// Random 150 bp pairs from short and long inserts: read-through adapters,
// poly-G tails, N runs, low qualities; two-colour (NovaSeq) names, so
// fastp's automatic poly-G trimming turns on.
void write_pairs(const std::filesystem::path& r1, const std::filesystem::path& r2, int pairs,
                 std::uint64_t seed) {
  static const std::string kAdapter1 = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCA";
  static const std::string kAdapter2 = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT";
  std::mt19937_64 rng(seed);
  const auto uniform = [&rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const auto bases = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "ACGT"[uniform(0, 3)];
    return s;
  };
  std::ofstream out1(r1, std::ios::binary), out2(r2, std::ios::binary);
  for (int p = 0; p < pairs; ++p) {
    const std::string insert = bases(uniform(0, 3) == 0 ? uniform(20, 140) : 400);
    std::string rc(insert.rbegin(), insert.rend());
    for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
    std::string s1 = (insert + kAdapter1 + bases(150)).substr(0, 150);
    std::string s2 = (rc + kAdapter2 + bases(150)).substr(0, 150);
    for (std::string* s : {&s1, &s2}) {
      const int feature = uniform(0, 5);
      if (feature == 1)
        for (int i = uniform(60, 149); i < 150; ++i) (*s)[static_cast<std::size_t>(i)] = 'G';
      if (feature == 2)
        for (int i = uniform(0, 140); i < 150 && uniform(0, 9) != 0; ++i)
          (*s)[static_cast<std::size_t>(i)] = 'N';
    }
    const int style = uniform(0, 2);
    const auto quality = [&] {
      std::string q;
      for (int i = 0; i < 150; ++i)
        q += static_cast<char>(33 + (style == 0   ? uniform(2, 41)
                                     : style == 1 ? uniform(30, 41)
                                                  : (i < 100 ? uniform(25, 41) : uniform(2, 20))));
      return q;
    };
    const std::string name = "@A00123:8:H7:1:1101:" + std::to_string(p) + ":1000";
    out1 << name << " 1:N:0:ACGT\n" << s1 << "\n+\n" << quality() << '\n';
    out2 << name << " 2:N:0:ACGT\n" << s2 << "\n+\n" << quality() << '\n';
  }
}

// "GPU workers" that are CPU engines: each counts its chunks, and the one
// on device `failing` (if any) fails on its first chunk (the run's second:
// the first goes to the first worker).
class CountingEngine final : public pp::TrimEngine {
 public:
  CountingEngine(const pp::TrimPlan& plan, std::atomic<int>& chunks, bool fail)
      : cpu_(pp::make_cpu_trim_engine(plan)), chunks_(chunks), fail_(fail) {}
  [[nodiscard]] std::string name() const override { return "fake"; }
  void trim(pp::ReadChunk& reads, pp::ReadChunk* mates, pp::ChunkOutput& out,
            pp::TrimTally& tally) override {
    if (fail_) throw seqfuse::Error("the fake device failed");
    ++chunks_;
    cpu_->trim(reads, mates, out, tally);
  }
  void finish(pp::TrimTally& tally) override { cpu_->finish(tally); }

 private:
  std::unique_ptr<pp::TrimEngine> cpu_;
  std::atomic<int>& chunks_;
  bool fail_;
};

struct FakeWorkers {
  std::vector<std::atomic<int>> chunks = std::vector<std::atomic<int>>(8);
  int failing = -1;
  pp::GpuEngineSource source() {
    pp::GpuEngineSource s;
    s.compiled = true;
    s.make = [this](const pp::TrimPlan& plan, int device) {
      return std::make_unique<CountingEngine>(plan, chunks[static_cast<std::size_t>(device)],
                                              device == failing);
    };
    s.bind = [](int) {};
    return s;
  }
};

struct Outputs {
  std::string out1, out2, json, html, engine;
};

Outputs run(pp::TrimOptions options, const TempDir& dir, const std::string& tag,
            const std::vector<int>* devices, FakeWorkers& workers) {
  const auto name = [&](std::string path) {
    if (path.empty()) return path;
    return dir.file(tag + "-" + path).string();
  };
  options.out1 = name(options.out1);
  options.out2 = name(options.out2);
  options.json = name(options.json);
  options.html = name(options.html);
  // The CPU run as --device auto finds no GPU: its chunks are those a GPU
  // run takes, so that gzip members are the same too (in a GPU build the
  // GPU engine's chunks are larger than the CPU engine's).
  options.choose_device = [devices] {
    return devices != nullptr ? seqfuse::DeviceChoice{true, *devices} : seqfuse::DeviceChoice{};
  };
  seqfuse::Reporter report("fastq-trim", true);
  const pp::TrimSummary summary = pp::run_fastq_trim(options, report, workers.source());
  Outputs o;
  o.out1 = slurp(options.out1);
  if (!options.out2.empty()) o.out2 = slurp(options.out2);
  o.json = slurp(options.json);
  o.html = slurp(options.html);
  o.engine = summary.engine;
  return o;
}

}  // namespace

TEST_CASE("fastq-trim on several fake GPU workers writes the CPU run's bytes and reports",
          "[preprocess][devices]") {
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  TempDir dir;
  const std::string r1 = dir.file("r1.fq").string(), r2 = dir.file("r2.fq").string();
  write_pairs(r1, r2, 24000, seed);  // 24 chunks of 1000 pairs (3 of the GPU engine's 8192)
  // The same pairs interleaved in one file.
  {
    std::ifstream a(r1), b(r2);
    std::ofstream both(dir.file("both.fq"));
    std::string line;
    for (bool more = true; more;) {
      for (std::ifstream* in : {&a, &b})
        for (int k = 0; k < 4 && (more = static_cast<bool>(std::getline(*in, line))); ++k)
          both << line << '\n';
    }
  }

  struct Case {
    std::string what;
    pp::TrimOptions options;
    bool on_workers;  // false: an option the GPU engine refuses (the CPU trims)
  };
  std::vector<Case> cases;
  pp::TrimOptions base;
  base.in1 = r1;
  base.in2 = r2;
  base.out1 = "o1.fq";
  base.out2 = "o2.fq";
  base.json = "r.json";
  base.html = "r.html";
  base.threads = 3;
  base.command_line = "fastq-trim test";
  {
    pp::TrimOptions o = base;  // adapters detected in both files, -c, -g, -x
    o.detect_adapter_for_pe = true;
    o.correction = true;
    o.trim_poly_x = true;
    o.cut_right = true;
    cases.push_back({"paired, detected adapters, -c -x --cut_right", o, true});
  }
  {
    pp::TrimOptions o = base;  // single-end into gzip
    o.in2.clear();
    o.out2.clear();
    o.out1 = "o1.fq.gz";
    o.cut_front = o.cut_tail = true;
    o.low_complexity_filter = true;
    o.length_limit = 120;
    o.trim_front1 = 2;
    cases.push_back({"single-end gzip, windows, -y, max length", o, true});
  }
  {
    pp::TrimOptions o = base;  // interleaved input, given adapters, gzip pairs
    o.in1 = dir.file("both.fq").string();
    o.in2.clear();
    o.interleaved_in = true;
    o.adapter_sequence = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCA";
    o.adapter_sequence_r2 = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT";
    o.out1 = "o1.fq.gz";
    o.out2 = "o2.fq.gz";
    o.n_base_limit = 2;
    o.average_qual = 25;
    cases.push_back({"interleaved in, given adapters, -n -e, gzip", o, true});
  }
  {
    pp::TrimOptions o = base;  // -D: the GPU engine refuses it
    o.dedup = true;
    cases.push_back({"paired -D (the CPU's)", o, false});
  }

  const std::vector<std::vector<int>> device_sets = {{0}, {0, 0}, {2, 0, 1}};
  for (const Case& c : cases) {
    INFO(c.what);
    FakeWorkers none;
    const Outputs want = run(c.options, dir, "cpu", nullptr, none);
    CHECK(want.engine == "cpu");
    REQUIRE(want.out1.size() > 100000);
    for (const std::vector<int>& devices : device_sets) {
      const seqfuse::DeviceChoice choice{true, devices};
      INFO(choice.name());
      FakeWorkers workers;
      const Outputs got =
          run(c.options, dir, std::to_string(devices.size()) + "-workers", &devices, workers);
      CHECK(got.out1 == want.out1);
      CHECK(got.out2 == want.out2);
      CHECK(got.json == want.json);
      CHECK(got.html == want.html);
      if (!c.on_workers) {
        CHECK(got.engine == "cpu");
        continue;
      }
      CHECK(got.engine == (devices.size() == 1 ? "fake" : choice.name()));
      // Every worker (chunks per device summed over its workers) trimmed some.
      int total = 0;
      for (const int d : std::set<int>(devices.begin(), devices.end())) {
        CHECK(workers.chunks[static_cast<std::size_t>(d)] > 0);
        total += workers.chunks[static_cast<std::size_t>(d)];
      }
      // The run's chunks are those of the GPU engine this build has.
      const std::size_t records = pp::gpu_trim_chunk_records();
      CHECK(static_cast<std::size_t>(total) == (24000 + records - 1) / records);
    }
  }
}

TEST_CASE("fastq-trim: a fake GPU worker failing mid-run leaves no output",
          "[preprocess][devices]") {
  TempDir dir;
  const std::string r1 = dir.file("r1.fq").string(), r2 = dir.file("r2.fq").string();
  write_pairs(r1, r2, 12000, 7);
  pp::TrimOptions o;
  o.in1 = r1;
  o.in2 = r2;
  o.out1 = dir.file("o1.fq").string();
  o.out2 = dir.file("o2.fq.gz").string();
  o.json = dir.file("r.json").string();
  o.html = dir.file("r.html").string();
  const std::vector<int> devices = {0, 1, 2};
  o.choose_device = [&devices] { return seqfuse::DeviceChoice{true, devices}; };
  FakeWorkers workers;
  workers.failing = 1;
  seqfuse::Reporter report("fastq-trim", true);
  CHECK_THROWS_WITH(pp::run_fastq_trim(o, report, workers.source()), "the fake device failed");
  for (const std::string& path : {o.out1, o.out2, o.json, o.html})
    CHECK_FALSE(std::filesystem::exists(path));
  // Nothing else left in the folder either (no temporary names).
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path()))
    ++files;
  CHECK(files == 2);

  // A worker whose engine cannot be made fails the run the same way.
  FakeWorkers broken;
  pp::GpuEngineSource source = broken.source();
  source.make = [](const pp::TrimPlan& plan, int device) -> std::unique_ptr<pp::TrimEngine> {
    if (device == 2) throw seqfuse::Error("no device 2");
    return pp::make_cpu_trim_engine(plan);
  };
  CHECK_THROWS_WITH(pp::run_fastq_trim(o, report, source), "no device 2");
  for (const std::string& path : {o.out1, o.out2, o.json, o.html})
    CHECK_FALSE(std::filesystem::exists(path));
}
