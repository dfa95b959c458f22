// The GPU fastq-trim engine against the CPU engine: the same output bytes
// and the same tallies (counts, adapter sequences, per-cycle statistics),
// on fresh random reads each run (adapters, poly-G tails, N runs, short and
// long reads, single- and paired-end, several option sets) and on the
// repository's example reads. The engine fills every device buffer it
// allocates with 0xAB, and the ChunkOutput strings start with a poison
// prefix that must stay untouched. Then the same with several GPU workers
// (gpu:0,0 and gpu:0,0,0: the multi-device path on one card), engine by
// engine and as whole runs.
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../unit/test_data.hpp"
#include "../unit/test_temp_dir.hpp"
#include "gpu/runtime.hpp"
#include "preprocess/device_engines.hpp"
#include "preprocess/engine.hpp"
#include "preprocess/fastq_records.hpp"
#include "preprocess/gpu_engine.hpp"
#include "preprocess/report/duplication.hpp"
#include "preprocess/trim_run.hpp"

namespace gpu = seqfuse::gpu;
namespace pp = seqfuse::preprocess;

namespace {

const std::string kAdapter1 = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCA";
const std::string kAdapter2 = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT";
const std::string kPoison = "\xAB\xAB poison \xAB\xAB";

struct Maker {
  explicit Maker(std::uint64_t seed) : rng(static_cast<std::mt19937::result_type>(seed)) {}
  std::mt19937 rng;
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  std::string bases(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "ACGT"[uniform(0, 3)];
    return s;
  }
  // One insert read from both ends: read 1 forward, read 2 the reverse
  // complement, each running into its adapter past a short insert.
  void pair(int max_length, std::string& s1, std::string& s2) {
    const int length = uniform(0, 19) == 0 ? uniform(0, 20) : uniform(30, max_length);
    const std::string insert = bases(uniform(10, 2 * max_length));
    std::string rc;
    for (auto it = insert.rbegin(); it != insert.rend(); ++it)
      rc += *it == 'A' ? 'T' : *it == 'C' ? 'G' : *it == 'G' ? 'C' : 'A';
    s1 = (insert + kAdapter1 + bases(max_length)).substr(0, static_cast<std::size_t>(length));
    s2 = (rc + kAdapter2 + bases(max_length)).substr(0, static_cast<std::size_t>(length));
    for (std::string* s : {&s1, &s2}) {
      const int feature = uniform(0, 5);
      if (feature == 1 && !s->empty()) {  // a poly-G tail (two-colour no-signal), with errors
        for (int i = uniform(0, length - 1); i < length; ++i)
          (*s)[static_cast<std::size_t>(i)] = uniform(0, 15) == 0 ? 'A' : 'G';
      } else if (feature == 2 && !s->empty()) {  // an N run
        const int at = uniform(0, length - 1);
        for (int i = at; i < std::min(length, at + uniform(1, 12)); ++i)
          (*s)[static_cast<std::size_t>(i)] = 'N';
      } else if (feature == 3 && !s->empty()) {  // a poly-A tail
        for (int i = uniform(0, length - 1); i < length; ++i)
          (*s)[static_cast<std::size_t>(i)] = 'A';
      } else if (feature == 4 && length > 2) {  // sequencing errors
        for (int k = 0; k < 3; ++k)
          (*s)[static_cast<std::size_t>(uniform(0, length - 1))] = "ACGTN"[uniform(0, 4)];
      }
    }
  }
  std::string quality(std::size_t n) {
    const int style = uniform(0, 3);
    std::string q;
    for (std::size_t i = 0; i < n; ++i) {
      int v = style == 0 ? uniform(2, 41) : style == 1 ? uniform(28, 41) : uniform(2, 20);
      if (style == 3) v = i < n / 2 ? uniform(20, 41) : uniform(2, 25);
      q += static_cast<char>(33 + v);
    }
    return q;
  }
};

void append(pp::ReadChunk& chunk, const std::string& header, const std::string& seq,
            const std::string& qual) {
  pp::FastqRecord r;
  seqfuse::io::TextBuffer& t = chunk.text;
  r.header = static_cast<std::uint32_t>(t.size());
  r.header_length = static_cast<std::uint32_t>(header.size());
  t += header;
  r.seq = static_cast<std::uint32_t>(t.size());
  t += seq;
  r.plus = static_cast<std::uint32_t>(t.size());
  r.plus_length = 1;
  t += '+';
  r.qual = static_cast<std::uint32_t>(t.size());
  t += qual;
  r.length = static_cast<std::uint32_t>(seq.size());
  chunk.records.push_back(r);
}

struct Chunks {
  std::vector<pp::ReadChunk> reads, mates;
};

Chunks random_chunks(Maker& m, int chunks, int per_chunk, int max_length) {
  Chunks c;
  for (int k = 0; k < chunks; ++k) {
    pp::ReadChunk r, s;
    for (int i = 0; i < per_chunk; ++i) {
      std::string s1, s2;
      m.pair(max_length, s1, s2);
      const std::string name = "@r" + std::to_string(k) + "_" + std::to_string(i);
      append(r, name + " 1:N:0:ACGT", s1, m.quality(s1.size()));
      append(s, name + " 2:N:0:ACGT", s2, m.quality(s2.size()));
    }
    c.reads.push_back(std::move(r));
    c.mates.push_back(std::move(s));
  }
  return c;
}

void same_stats(const pp::ReadStats& a, const pp::ReadStats& b) {
  CHECK(a.reads() == b.reads());
  CHECK(a.bases() == b.bases());
  CHECK(a.q20_bases() == b.q20_bases());
  CHECK(a.q30_bases() == b.q30_bases());
  CHECK(a.gc_bases() == b.gc_bases());
  CHECK(a.cycles() == b.cycles());
  CHECK(a.mean_length() == b.mean_length());
  CHECK(a.mean_quality_curve() == b.mean_quality_curve());
  for (char base : {'A', 'C', 'G', 'T', 'N'}) {
    CHECK(a.base_count(base) == b.base_count(base));
    CHECK(a.quality_curve(base) == b.quality_curve(base));
    CHECK(a.content_curve(base) == b.content_curve(base));
  }
  CHECK(a.kmer_counts() == b.kmer_counts());
}

void same_tally(const pp::TrimTally& a, const pp::TrimTally& b) {
  CHECK(a.counts.reads == b.counts.reads);
  CHECK(a.counts.adapter_trimmed_reads == b.counts.adapter_trimmed_reads);
  CHECK(a.counts.adapter_trimmed_bases == b.counts.adapter_trimmed_bases);
  CHECK(a.counts.adapters_read1 == b.counts.adapters_read1);
  CHECK(a.counts.adapters_read2 == b.counts.adapters_read2);
  CHECK(a.counts.polyx_reads == b.counts.polyx_reads);
  CHECK(a.counts.polyx_bases == b.counts.polyx_bases);
  CHECK(a.counts.corrected_reads == b.counts.corrected_reads);
  CHECK(a.counts.corrections == b.counts.corrections);
  CHECK(a.counts.insert_sizes == b.counts.insert_sizes);
  CHECK(a.reads_in == b.reads_in);
  CHECK(a.bases_in == b.bases_in);
  CHECK(a.reads_out == b.reads_out);
  CHECK(a.bases_out == b.bases_out);
  same_stats(a.before1, b.before1);
  same_stats(a.after1, b.after1);
  same_stats(a.before2, b.before2);
  same_stats(a.after2, b.after2);
}

// `chunks` chunks of 3000 reads (pairs) up to 300 bp, then one of 200
// longer reads (past the device statistics: that chunk runs on the host).
Chunks chunks_and_long_reads(Maker& m, int chunks) {
  Chunks c = random_chunks(m, chunks, 3000, 300);
  const Chunks long_reads = random_chunks(m, 1, 200, 700);
  c.reads.push_back(long_reads.reads[0]);
  c.mates.push_back(long_reads.mates[0]);
  return c;
}

// Runs `engine` over copies of the chunks (base correction edits them),
// `threads` chunks at a time, and merges the per-thread tallies.
void run_engine(pp::TrimEngine& engine, const Chunks& input, bool paired, unsigned threads,
                std::vector<pp::ChunkOutput>& outputs, pp::TrimTally& total) {
  Chunks c = input;
  const std::size_t n = c.reads.size();
  outputs.assign(n, pp::ChunkOutput{});
  for (auto& o : outputs) o.out1 = o.out2 = kPoison;
  std::vector<pp::TrimTally> tallies(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += threads)
        engine.trim(c.reads[i], paired ? &c.mates[i] : nullptr, outputs[i], tallies[t]);
    });
  }
  for (auto& w : workers) w.join();
  engine.finish(tallies[0]);
  for (const pp::TrimTally& t : tallies) total.merge(t);
}

// The engine of `devices` as the run makes it: the GPU engine itself for
// one worker, else one per worker behind the dealing engine.
std::unique_ptr<pp::TrimEngine> gpu_engine_on(const pp::TrimPlan& plan,
                                              const std::vector<int>& devices) {
  if (devices.size() == 1) return pp::make_gpu_trim_engine(plan, devices[0]);
  return pp::deal_to_engines(
      pp::make_device_engines(
          devices, [&](int device) { return pp::make_gpu_trim_engine(plan, device); },
          [](int device) { gpu::use_device(device); }),
      "gpu:" + std::to_string(devices.size()) + " workers");
}

void gpu_equals_cpu(const pp::TrimPlan& plan, const Chunks& chunks, bool paired,
                    const std::vector<int>& devices = {0}) {
  REQUIRE(pp::gpu_trim_refusal(plan).empty());
  auto cpu = pp::make_cpu_trim_engine(plan);
  auto gpu_engine = gpu_engine_on(plan, devices);
  std::vector<pp::ChunkOutput> want, got;
  pp::TrimTally cpu_tally, gpu_tally;
  run_engine(*cpu, chunks, paired, 1, want, cpu_tally);
  // Three calling threads a worker, as many as -w 16 gives four workers.
  run_engine(*gpu_engine, chunks, paired, static_cast<unsigned>(3 * devices.size()), got,
             gpu_tally);
  REQUIRE(want.size() == got.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i].out1 == want[i].out1);
    CHECK(got[i].out2 == want[i].out2);
  }
  same_tally(cpu_tally, gpu_tally);
}

// The option sets: each a change to fastp's defaults.
std::vector<std::pair<std::string, pp::TrimPlan>> plans(bool paired) {
  std::vector<std::pair<std::string, pp::TrimPlan>> all;
  const auto base = [paired] {
    pp::TrimPlan p;
    p.settings.paired = paired;
    return p;
  };
  all.emplace_back("defaults, no adapter sequence", base());
  {
    pp::TrimPlan p = base();
    p.adapter1 = kAdapter1;
    if (paired) p.adapter2 = kAdapter2;
    p.settings.poly_g = true;
    all.emplace_back("adapters and poly-G", p);
  }
  {
    pp::TrimPlan p = base();
    p.adapter1 = kAdapter1;
    p.settings.front[0] = 3;
    p.settings.tail[1] = 2;
    p.settings.cut.front = p.settings.cut.tail = true;
    p.settings.poly_x = true;
    p.settings.max_len[0] = 100;
    p.settings.filter.average_quality = 20;
    p.settings.filter.length_limit = 140;
    all.emplace_back("fixed trims, windows, poly-X, max_len, -e", p);
  }
  {
    pp::TrimPlan p = base();
    p.settings.cut.right = true;
    p.settings.cut.right_window = 6;
    p.settings.cut.right_quality = 25;
    p.settings.correction = true;
    p.settings.filter.complexity = true;
    p.settings.filter.n_base_limit = 2;
    p.fasta_adapters = {kAdapter1, kAdapter2, "CTGTCTCTTATACACATCT"};
    p.interleaved_output = paired;
    all.emplace_back("cut_right, -c, -y, FASTA adapters, interleaved", p);
  }
  {
    pp::TrimPlan p = base();
    p.settings.adapter_trimming = false;
    p.settings.filter.quality = false;
    p.settings.filter.length = false;
    p.settings.poly_g = true;
    p.settings.poly_g_min_len = 5;
    all.emplace_back("-A -Q -L", p);
  }
  return all;
}

}  // namespace

TEST_CASE("the GPU fastq-trim engine equals the CPU engine on random reads", "[gpu]") {
  REQUIRE_FALSE(gpu::devices().empty());
  gpu::use_device(0);
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  Maker maker(seed);
  for (bool paired : {false, true}) {
    Chunks chunks = chunks_and_long_reads(maker, 7);
    for (const auto& [name, plan] : plans(paired)) {
      INFO((paired ? "paired-end: " : "single-end: ") + name);
      gpu_equals_cpu(plan, chunks, paired);
    }
  }
}

// The duplication estimate the GPU engine takes over (take_duplication)
// counts as the host's: reads hashed on the device, and a chunk of reads
// too long for the device, which the host hashes and the engine sets the
// bits of on the device. Chunk 0 comes again at the end, so that every
// read of it is a duplicate then. (Whole runs: the JSON reports of GPU and
// CPU runs are compared below and by scripts/device-fastq-trim-bench.sh.)
TEST_CASE("the GPU fastq-trim engine's duplication estimate equals the host's", "[gpu]") {
  REQUIRE_FALSE(gpu::devices().empty());
  gpu::use_device(0);
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  Maker maker(seed);
  for (bool paired : {false, true}) {
    INFO((paired ? "paired-end" : "single-end"));
    Chunks chunks = chunks_and_long_reads(maker, 6);
    chunks.reads.push_back(chunks.reads[0]);
    chunks.mates.push_back(chunks.mates[0]);
    pp::Duplication host(1), device(1);
    for (std::size_t k = 0; k < chunks.reads.size(); ++k) {
      for (std::size_t r = 0; r < chunks.reads[k].size(); ++r) {
        const std::string_view seq = chunks.reads[k].seq(chunks.reads[k].records[r]);
        if (paired)
          host.check_pair(seq, chunks.mates[k].seq(chunks.mates[k].records[r]));
        else
          host.check_read(seq);
      }
    }
    pp::TrimPlan plan;
    plan.settings.paired = paired;
    plan.settings.correction = paired;  // edits bases on the device, after the estimate
    auto engine = pp::make_gpu_trim_engine(plan, 0);
    REQUIRE(engine->take_duplication(device));
    std::vector<pp::ChunkOutput> outputs;
    pp::TrimTally tally;
    run_engine(*engine, chunks, paired, 3, outputs, tally);
    CHECK(device.reads() == host.reads());
    CHECK(device.duplicates() == host.duplicates());
    CHECK(device.duplicates() >= 3000);
  }
}

TEST_CASE("the GPU fastq-trim engine equals the CPU engine on the example reads", "[gpu]") {
  REQUIRE_FALSE(gpu::devices().empty());
  gpu::use_device(0);
  const std::string data = (seqfuse::test::data_dir() / ".." / ".." / "data").string() + "/";
  pp::FastqRecordReader r1(data + "adapter_reads_1.fq.gz"), r2(data + "adapter_reads_2.fq.gz");
  Chunks chunks;
  for (;;) {
    pp::ReadChunk a, b;
    while (a.size() < 128 && r1.next(a)) REQUIRE(r2.next(b));  // 500 pairs: 4 chunks
    if (a.size() == 0) break;
    chunks.reads.push_back(std::move(a));
    chunks.mates.push_back(std::move(b));
  }
  REQUIRE(chunks.reads.size() > 1);
  for (bool paired : {false, true}) {
    for (const auto& [name, plan] : plans(paired)) {
      INFO((paired ? "paired-end: " : "single-end: ") + name);
      gpu_equals_cpu(plan, chunks, paired);
    }
  }
}

TEST_CASE("several GPU workers trim as one GPU and the CPU do on random reads", "[gpu]") {
  REQUIRE_FALSE(gpu::devices().empty());
  gpu::use_device(0);
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  Maker maker(seed);
  for (bool paired : {false, true}) {
    Chunks chunks = random_chunks(maker, 11, 2000, 300);
    const Chunks long_reads = random_chunks(maker, 1, 200, 700);  // a chunk on the host
    chunks.reads.insert(chunks.reads.begin() + 5, long_reads.reads[0]);
    chunks.mates.insert(chunks.mates.begin() + 5, long_reads.mates[0]);
    for (const std::vector<int>& devices : {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}}) {
      for (const auto& [name, plan] : plans(paired)) {
        INFO((paired ? "paired-end: " : "single-end: ") + name + ", " +
             std::to_string(devices.size()) + " workers on GPU 0");
        gpu_equals_cpu(plan, chunks, paired, devices);
      }
    }
  }
}

namespace {

// A chunk's records as FASTQ lines.
void write_fastq(const pp::ReadChunk& chunk, std::ofstream& out) {
  for (const pp::FastqRecord& r : chunk.records) {
    out.write(chunk.text.data() + r.header, r.header_length) << '\n';
    out.write(chunk.text.data() + r.seq, r.length) << "\n+\n";
    out.write(chunk.text.data() + r.qual, r.length) << '\n';
  }
}

}  // namespace

TEST_CASE("fastq-trim runs on gpu:0, gpu:0,0 and gpu:0,0,0 write the CPU run's files", "[gpu]") {
  REQUIRE_FALSE(gpu::devices().empty());
  const std::uint64_t seed = seqfuse::test::test_seed();
  INFO("SEQFUSE_TEST_SEED=" << seed);
  Maker maker(seed);
  seqfuse::test::TempDir dir;
  {
    // 60,000 pairs: 8 chunks of the GPU engine's 8192, one of long reads.
    std::ofstream r1(dir.file("r1.fq")), r2(dir.file("r2.fq"));
    Chunks chunks = random_chunks(maker, 12, 5000, 300);
    const Chunks long_reads = random_chunks(maker, 1, 300, 700);
    chunks.reads.insert(chunks.reads.begin() + 4, long_reads.reads[0]);
    chunks.mates.insert(chunks.mates.begin() + 4, long_reads.mates[0]);
    for (std::size_t k = 0; k < chunks.reads.size(); ++k) {
      write_fastq(chunks.reads[k], r1);
      write_fastq(chunks.mates[k], r2);
    }
  }
  const auto run = [&](const std::string& tag, const std::vector<int>* devices, bool gzip) {
    pp::TrimOptions o;
    o.in1 = dir.file("r1.fq").string();
    o.in2 = dir.file("r2.fq").string();
    o.out1 = dir.file(tag + "-o1.fq").string();
    o.out2 = dir.file(tag + (gzip ? "-o2.fq.gz" : "-o2.fq")).string();
    o.json = dir.file(tag + ".json").string();
    o.html = dir.file(tag + ".html").string();
    o.adapter_sequence = kAdapter1;
    o.adapter_sequence_r2 = kAdapter2;
    o.correction = true;
    o.trim_poly_g = true;
    o.cut_right = true;
    o.threads = 12;
    o.command_line = "fastq-trim";
    // The CPU run as --device auto finds no GPU: its chunks are the GPU
    // engine's, so that its gzip members are the same too.
    o.choose_device = [devices] {
      return devices != nullptr ? seqfuse::DeviceChoice{true, *devices} : seqfuse::DeviceChoice{};
    };
    o.gpu_required = devices != nullptr;  // a refusal fails the test, not trims on the CPU
    seqfuse::Reporter report("fastq-trim", true);
    const pp::TrimSummary summary = pp::run_fastq_trim(o, report);
    std::vector<std::string> files;
    for (const std::string* path : {&o.out1, &o.out2, &o.json, &o.html})
      files.push_back(seqfuse::test::slurp(*path));
    files.push_back(summary.engine);
    return files;
  };
  for (const bool gzip : {false, true}) {
    INFO(std::string(gzip ? "read 2 into gzip" : "plain outputs"));
    std::vector<std::string> want = run("cpu", nullptr, gzip);
    REQUIRE(want[0].size() > 1000000);
    CHECK(want.back() == "cpu");
    for (const std::vector<int>& devices :
         {std::vector<int>{0}, std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}}) {
      const seqfuse::DeviceChoice choice{true, devices};
      INFO(choice.name());
      std::vector<std::string> got = run(std::to_string(devices.size()), &devices, gzip);
      CHECK(got.back() == choice.name());
      want.back() = got.back();
      for (std::size_t f = 0; f < want.size(); ++f) CHECK(got[f] == want[f]);
    }
  }
}
