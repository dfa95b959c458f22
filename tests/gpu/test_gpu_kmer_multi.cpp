// kmer-count split across GPU workers (--device gpu:0,0,... on one card runs
// the multi-device path): the kernel's key-range filter against a host count,
// and whole counts on devices {0}, {0,0} and {0,0,0} whose database, dump and
// histogram bytes must equal one worker's and the CPU engine's, on fresh
// random reads each run (FASTQ text, FASTA, gzip FASTQ), with rounds forced
// by a small device budget too.
#include <htslib/bgzf.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/device_choice.hpp"
#include "core/report.hpp"
#include "gpu/primitives/kmer_code.hpp"
#include "io/batch.hpp"
#include "kmer/count_job.hpp"
#include "kmer/engine.hpp"
#include "kmer/gpu_engine.hpp"
#include "kmer/key_ranges.hpp"

namespace kmer = seqfuse::kmer;
namespace io = seqfuse::io;
namespace fs = std::filesystem;

namespace {

using Counts = std::map<kmer::KmerKey, std::uint64_t>;

std::vector<std::string> random_reads(std::mt19937_64& rng, std::size_t count,
                                      std::size_t max_len) {
  std::uniform_int_distribution<std::size_t> length(0, max_len);
  std::uniform_int_distribution<int> letter(0, 99);
  std::vector<std::string> reads;
  for (std::size_t r = 0; r < count; ++r) {
    std::string seq(length(rng), 'A');
    for (char& c : seq) {
      const int x = letter(rng);
      c = x < 1 ? 'N' : x < 8 ? 'A' : "ACGTacgt"[x % 8];
    }
    reads.push_back(seq);
  }
  return reads;
}

template <int W>
void count_on_host(const std::vector<std::string>& reads, int k, bool canonical, Counts& out) {
  for (const std::string& read : reads) {
    kmer::KmerRoller<W> roller(k);
    for (char c : read) {
      if (!roller.push_letter(c)) continue;
      const auto& x = canonical ? roller.canonical() : roller.forward();
      ++out[{x.w[0], W == 2 ? x.w[W - 1] : 0}];
    }
  }
}

Counts host_counts(const std::vector<std::string>& reads, int k, bool canonical) {
  Counts counts;
  if (kmer::words_for_k(k) == 2)
    count_on_host<2>(reads, k, canonical, counts);
  else
    count_on_host<1>(reads, k, canonical, counts);
  return counts;
}

class CollectingSink final : public kmer::RunSink {
 public:
  void take(kmer::SortedRun run) override {
    const int w = run.words_per_kmer();
    for (std::size_t i = 0; i < run.size(); ++i)
      counts[{run.words[i * w], w == 2 ? run.words[i * w + 1] : 0}] += run.counts[i];
  }
  Counts counts;
};

std::string fastq_of(const std::vector<std::string>& reads) {
  std::string text;
  for (std::size_t i = 0; i < reads.size(); ++i)
    text += "@r" + std::to_string(i) + "\n" + reads[i] + "\n+\n" +
            std::string(reads[i].size(), 'F') + "\n";
  return text;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("GPU engines on key ranges count each k-mer of their range once", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  const std::vector<std::string> reads = random_reads(rng, 3000, 250);
  io::SequenceBatch batch;
  for (const std::string& read : reads) batch.push_back("r", "", read);
  const std::string text = fastq_of(reads);
  for (int k : {1, 2, 15, 31, 32, 33, 45, 63}) {
    for (bool canonical : {true, false}) {
      const Counts expected = host_counts(reads, k, canonical);
      kmer::KmerSample sample(k, canonical);
      sample.add_batch(batch);
      const auto ranges = kmer::split_key_space(sample.keys(), k, canonical, 3);
      for (bool as_text : {false, true}) {
        Counts together;
        for (const kmer::KeyRange& range : ranges) {
          kmer::EngineParams params;
          params.k = k;
          params.canonical = canonical;
          params.keys = range;
          CollectingSink sink;
          auto engine = kmer::make_gpu_engine(params, sink);
          if (as_text) {
            engine->add_fastq_text(text.data(), text.size());
            CHECK(engine->text_totals().records == reads.size());
          } else {
            engine->add(batch);
          }
          engine->finish();
          INFO("k=" << k << " canonical=" << canonical << " text=" << as_text);
          for (const auto& [key, count] : sink.counts) {
            REQUIRE(range.contains(key));
            together[key] += count;
          }
        }
        INFO("k=" << k << " canonical=" << canonical << " text=" << as_text);
        CHECK(together == expected);
      }
    }
  }
}

TEST_CASE("kmer-count on GPU workers {0}, {0,0}, {0,0,0} writes the same bytes", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  const fs::path dir = fs::temp_directory_path() / ("seqfuse-gpu-multi-" + std::to_string(rng()));
  fs::create_directories(dir);
  const std::vector<std::string> reads = random_reads(rng, 60000, 200);
  const std::size_t third = reads.size() / 3;
  std::ofstream(dir / "a.fq") << fastq_of({reads.begin(), reads.begin() + third});
  {
    std::ofstream fasta(dir / "b.fa");
    for (std::size_t i = third; i < 2 * third; ++i) fasta << ">r" << i << "\n" << reads[i] << "\n";
  }
  {
    const std::string gz = fastq_of({reads.begin() + 2 * third, reads.end()});
    BGZF* out = bgzf_open((dir / "c.fq.gz").c_str(), "wg");
    REQUIRE(out != nullptr);
    REQUIRE(bgzf_write(out, gz.data(), gz.size()) == static_cast<ssize_t>(gz.size()));
    REQUIRE(bgzf_close(out) == 0);
  }
  const std::vector<std::string> inputs = {(dir / "a.fq").string(), (dir / "b.fa").string(),
                                           (dir / "c.fq.gz").string()};
  const auto count = [&](const std::string& tag, kmer::CountOptions options,
                         const std::vector<int>& devices, std::size_t device_budget,
                         bool histo_only) {
    options.inputs = inputs;
    options.threads = 4;
    options.max_memory = std::size_t{2} << 30;
    if (!devices.empty()) {
      options.choose_device = [devices] { return seqfuse::DeviceChoice{true, devices}; };
      options.gpu_required = true;
      if (device_budget > 0)  // rounds on every worker
        options.gpu_workers.make = [device_budget](kmer::EngineParams params, kmer::RunSink& sink) {
          params.memory_budget = device_budget;
          return kmer::make_gpu_engine(params, sink);
        };
    }
    options.histo_path = (dir / (tag + ".histo")).string();
    // Poison: every output must be written anew.
    for (const char* ext : {".histo", ".kdb", ".dump"})
      std::ofstream(dir / (tag + ext)) << "poison";
    if (!histo_only) {
      options.db_path = (dir / (tag + ".kdb")).string();
      options.dump_path = (dir / (tag + ".dump")).string();
    }
    seqfuse::Reporter report("kmer-count", true);
    (void)kmer::run_count_job(options, report);
    std::string all = slurp(options.histo_path);
    if (!histo_only) all += "\n--\n" + slurp(options.db_path) + "\n--\n" + slurp(options.dump_path);
    return all;
  };
  for (int k : {17, 31, 45}) {
    for (bool canonical : {true, false}) {
      for (bool histo_only : {true, false}) {
        kmer::CountOptions options;
        options.k = k;
        options.canonical = canonical;
        if (!histo_only) options.lower_count = 2;
        const std::string cpu = count("cpu", options, {}, 0, histo_only);
        REQUIRE(cpu.find("poison") == std::string::npos);
        for (std::size_t budget : {std::size_t{0}, std::size_t{80} << 20}) {
          for (const std::vector<int>& devices :
               {std::vector<int>{0}, std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}}) {
            INFO("k=" << k << " canonical=" << canonical << " histo_only=" << histo_only
                      << " budget=" << budget << " workers=" << devices.size());
            CHECK(count("gpu", options, devices, budget, histo_only) == cpu);
          }
        }
      }
    }
  }
  fs::remove_all(dir);
}
