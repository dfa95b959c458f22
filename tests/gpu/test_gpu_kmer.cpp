// GPU k-mer counting against a plain host count (std::map over KmerRoller),
// on fresh random reads each run: the device ops with poisoned outputs, and
// the engine with a memory budget small enough to force several rounds.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/kmer/count_kmers.hpp"
#include "gpu/primitives/kmer_code.hpp"
#include "gpu/runtime.hpp"
#include "io/batch.hpp"
#include "io/fastq_chunks.hpp"
#include "kmer/engine.hpp"
#include "kmer/gpu_engine.hpp"

namespace gpu = seqfuse::gpu;
namespace kmer = seqfuse::kmer;
namespace io = seqfuse::io;

namespace {

using WordsKey = std::vector<std::uint64_t>;
using Counts = std::map<WordsKey, std::uint64_t>;

// Reads with N and IUPAC letters (unless `clean`), lowercase, reads shorter
// than k and runs of A.
io::SequenceBatch random_batch(std::mt19937_64& rng, std::size_t reads, std::size_t max_len,
                               bool clean = false) {
  io::SequenceBatch batch;
  std::uniform_int_distribution<std::size_t> length(0, max_len);
  std::uniform_int_distribution<int> letter(0, 99);
  const char letters[] = "ACGTacgt";
  for (std::size_t r = 0; r < reads; ++r) {
    std::string seq(length(rng), 'A');
    for (auto& c : seq) {
      const int x = letter(rng);
      c = !clean && x < 2 ? 'N' : !clean && x < 4 ? 'R' : x < 10 ? 'A' : letters[x % 8];
    }
    batch.push_back("r" + std::to_string(r), "", seq);
  }
  return batch;
}

template <int W>
void count_on_host(const io::SequenceBatch& batch, int k, bool canonical, Counts& out) {
  for (std::size_t r = 0; r < batch.size(); ++r) {
    kmer::KmerRoller<W> roller(k);
    for (char c : batch.sequence(r)) {
      if (!roller.push_letter(c)) continue;
      const auto& x = canonical ? roller.canonical() : roller.forward();
      ++out[WordsKey(x.w, x.w + W)];
    }
  }
}

Counts host_counts(const io::SequenceBatch& batch, int k, bool canonical) {
  Counts counts;
  if (kmer::words_for_k(k) == 2)
    count_on_host<2>(batch, k, canonical, counts);
  else
    count_on_host<1>(batch, k, canonical, counts);
  return counts;
}

class CollectingSink final : public kmer::RunSink {
 public:
  void take(kmer::SortedRun run) override {
    const int w = run.words_per_kmer();
    for (std::size_t i = 0; i < run.size(); ++i) {
      WordsKey key(run.words.begin() + i * w, run.words.begin() + (i + 1) * w);
      if (i > 0) {
        WordsKey previous(run.words.begin() + (i - 1) * w, run.words.begin() + i * w);
        CHECK(previous < key);  // ascending and unique within a run
      }
      counts[key] += run.counts[i];
    }
    ++runs;
  }
  Counts counts;
  int runs = 0;
};

}  // namespace

TEST_CASE("GPU k-mer extraction and counting equal the host count", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  for (int k : {1, 2, 15, 31, 32, 33, 45, 63}) {
    for (bool canonical : {true, false}) {
      const io::SequenceBatch batch = random_batch(rng, 3000, 300);
      const std::size_t total = batch.total_bases();
      gpu::Stream stream;
      gpu::DeviceBuffer bases(total), offsets(batch.offsets.size() * 8), counter(8);
      gpu::copy_to_device(bases.data(), batch.bases.data(), total, stream);
      gpu::copy_to_device(offsets.data(), batch.offsets.data(), offsets.size(), stream);
      gpu::fill_device(counter.data(), 0, 8, stream);
      gpu::DeviceBuffer high(total * 8), low(total * 8);
      gpu::KmerSortSpace space(total, k);
      gpu::fill_device(space.unique_words.data(), 0xAB, space.unique_words.size(), stream);
      gpu::fill_device(space.counts.data(), 0xAB, space.counts.size(), stream);

      gpu::KmerExtraction job;
      job.k = k;
      job.canonical = canonical;
      job.bases = bases.as<const char>();
      job.offsets = offsets.as<const std::uint64_t>();
      job.records = batch.size();
      // Two slices with a cut inside a record: the second must warm up
      // across the cut.
      const std::size_t cut = total / 2 + 7;
      gpu::KmerColumns columns{high.as<std::uint64_t>(), low.as<std::uint64_t>()};
      for (auto [from, to] : {std::pair{std::size_t{0}, cut}, std::pair{cut, total}}) {
        job.end_from = from;
        job.end_to = to;
        REQUIRE(gpu::extract_kmers(job, columns, total, counter.as<unsigned long long>(), stream) ==
                gpu::Status::kSuccess);
      }
      unsigned long long n = 0;
      gpu::copy_to_host(&n, counter.data(), 8, stream);
      stream.synchronize();

      std::size_t runs = 0;
      REQUIRE(gpu::sort_and_count(columns, n, k, space, runs, stream) == gpu::Status::kSuccess);
      const int w = kmer::words_for_k(k);
      std::vector<std::uint64_t> words(runs * w);
      std::vector<std::uint32_t> counts(runs);
      gpu::copy_to_host(words.data(), space.unique_words.data(), words.size() * 8, stream);
      gpu::copy_to_host(counts.data(), space.counts.data(), counts.size() * 4, stream);
      stream.synchronize();

      const Counts expected = host_counts(batch, k, canonical);
      INFO("k=" << k << " canonical=" << canonical << " k-mers=" << n);
      REQUIRE(runs == expected.size());
      std::size_t i = 0;
      std::uint64_t sum = 0;
      for (const auto& [key, count] : expected) {
        REQUIRE(WordsKey(words.begin() + i * w, words.begin() + (i + 1) * w) == key);
        REQUIRE(counts[i] == count);
        sum += count;
        ++i;
      }
      CHECK(sum == n);
    }
  }
}

TEST_CASE("the GPU engine splits work into rounds under a small memory budget", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  for (int k : {21, 45}) {
    kmer::EngineParams params;
    params.k = k;
    params.canonical = true;
    params.memory_budget = std::size_t{80} << 20;
    CollectingSink sink;
    Counts expected;
    auto engine = kmer::make_gpu_engine(params, sink);
    // About 4 M k-mers against room for 1.4 M (k = 45) to 2.3 M (k = 21).
    for (int b = 0; b < 6; ++b) {
      const io::SequenceBatch batch = random_batch(rng, 8000, 250, true);
      engine->add(batch);
      for (const auto& [key, count] : host_counts(batch, k, true)) expected[key] += count;
    }
    engine->finish();
    INFO("k=" << k << " rounds=" << sink.runs);
    CHECK(sink.runs >= 2);
    CHECK(sink.counts == expected);
  }
}

namespace {

// The batch as FASTQ text, every third record with Windows line ends.
std::string as_fastq_text(const io::SequenceBatch& batch) {
  std::string text;
  for (std::size_t r = 0; r < batch.size(); ++r) {
    const char* eol = r % 3 == 2 ? "\r\n" : "\n";
    const std::string_view seq = batch.sequence(r);
    text += "@" + std::string(batch.name(r)) + " x" + eol + std::string(seq) + eol + "+" + eol +
            std::string(seq.size(), r % 5 == 0 ? '@' : 'I') + eol;
  }
  return text;
}

}  // namespace

TEST_CASE("the GPU engine counts FASTQ text parsed on the device", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  for (int k : {5, 31, 33}) {
    const io::SequenceBatch batch = random_batch(rng, 5000, 200);
    const std::string text = as_fastq_text(batch);
    kmer::EngineParams params;
    params.k = k;
    CollectingSink sink;
    auto engine = kmer::make_gpu_engine(params, sink);
    REQUIRE(engine->takes_fastq_text());
    // Cut where the host reader would: after the last whole record of the
    // first part (quality lines starting with '@' included).
    const std::size_t cut = io::whole_records_end(text.data(), text.size() / 2);
    REQUIRE(cut > 0);
    engine->add_fastq_text(text.data(), cut);
    engine->add_fastq_text(text.data() + cut, text.size() - cut);
    const kmer::TextTotals totals = engine->text_totals();
    engine->finish();
    INFO("k=" << k);
    CHECK_FALSE(totals.malformed);
    CHECK(totals.records == batch.size());
    CHECK(totals.bases == batch.total_bases());
    CHECK(sink.counts == host_counts(batch, k, true));
  }
}

TEST_CASE("FASTQ text in many chunks fills a small room over several rounds", "[gpu][kmer]") {
  // Chunks take the engine's two device slots in turn; the room (from an 80
  // MB budget) fills inside chunks, so the bounded and the exact paths and
  // several rounds all run.
  std::mt19937_64 rng(std::random_device{}());
  for (int k : {21, 45}) {
    kmer::EngineParams params;
    params.k = k;
    params.memory_budget = std::size_t{80} << 20;
    CollectingSink sink;
    Counts expected;
    auto engine = kmer::make_gpu_engine(params, sink);
    std::uint64_t records = 0;
    // About 4 M k-mers (clean reads: N would break most of them) against
    // room for 1.4 M (k = 45) to 2.3 M (k = 21).
    for (int b = 0; b < 6; ++b) {
      const io::SequenceBatch batch = random_batch(rng, 8000, 250, true);
      for (const auto& [key, count] : host_counts(batch, k, true)) expected[key] += count;
      records += batch.size();
      const std::string text = as_fastq_text(batch);
      for (std::size_t from = 0; from < text.size();) {
        const std::size_t want = std::uniform_int_distribution<std::size_t>(1, 400'000)(rng);
        std::size_t to =
            from + io::whole_records_end(text.data() + from, std::min(want, text.size() - from));
        if (to == from) to = text.size();  // no whole record in `want` bytes: the rest
        engine->add_fastq_text(text.data() + from, to - from);
        from = to;
      }
    }
    const kmer::TextTotals totals = engine->text_totals();
    engine->finish();
    INFO("k=" << k << " rounds=" << sink.runs);
    CHECK_FALSE(totals.malformed);
    CHECK(totals.records == records);
    CHECK(sink.runs >= 2);
    CHECK(sink.counts == expected);
  }
}

TEST_CASE("text with more bases than quality bytes cannot overrun the room", "[gpu][kmer]") {
  // Malformed records (1,000 bases, a 1-letter quality line) break the
  // engine's bound of half a chunk's bytes; the room must not be written
  // past, the text is reported malformed, and a count is never short.
  std::mt19937_64 rng(std::random_device{}());
  std::string record = "@r\n";
  for (int i = 0; i < 1000; ++i) record += "ACGT"[rng() % 4];
  record += "\n+\nI\n";
  std::string chunk;
  while (chunk.size() < (std::size_t{256} << 10)) chunk += record;
  kmer::EngineParams params;
  params.k = 21;
  params.kmer_bound = 1;  // the smallest room the engine takes (about 1 M k-mers)
  CollectingSink sink;
  auto engine = kmer::make_gpu_engine(params, sink);
  for (int c = 0; c < 12; ++c) engine->add_fastq_text(chunk.data(), chunk.size());
  const kmer::TextTotals totals = engine->text_totals();
  CHECK(totals.malformed);
  try {
    engine->finish();
  } catch (const seqfuse::Error&) {
    // The overflow, when the mask let the long lines through.
  }
}

TEST_CASE("malformed FASTQ text is reported with its record", "[gpu][kmer]") {
  const std::string good = "@r\nACGT\n+\nIIII\n";
  struct Case {
    std::string bad;
    const char* problem;
  };
  for (const Case& c : {Case{"r\nACGT\n+\nIIII\n", "'@'"}, Case{"@r\nACGT\n-\nIIII\n", "'+'"},
                        Case{"@r\nACGT\n+\nIII\n", "quality"}, Case{"@r\nACGT\n", "ends"}}) {
    std::string text;
    for (int i = 0; i < 7; ++i) text += good;
    text += c.bad;
    text += c.bad.size() > 10 ? good : "";
    kmer::EngineParams params;
    params.k = 3;
    CollectingSink sink;
    auto engine = kmer::make_gpu_engine(params, sink);
    engine->add_fastq_text(text.data(), text.size());
    const kmer::TextTotals totals = engine->text_totals();
    INFO(c.bad);
    CHECK(totals.malformed);
    CHECK(totals.malformed_record == 7);
    CHECK(totals.problem.find(c.problem) != std::string::npos);
  }
}

TEST_CASE("a one-round GPU count gives its histogram on the device", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  // Homopolymer-rich reads, so some counts pass the 1024 and 65536 bins.
  io::SequenceBatch batch = random_batch(rng, 4000, 300);
  for (int r = 0; r < 300; ++r)
    batch.push_back("polyA" + std::to_string(r), "", std::string(300, 'A'));
  for (int k : {11, 31, 40}) {
    kmer::EngineParams params;
    params.k = k;
    CollectingSink sink;
    auto engine = kmer::make_gpu_engine(params, sink);
    engine->add(batch);
    std::vector<std::pair<std::uint32_t, std::uint64_t>> frequencies;
    REQUIRE(engine->finish_with_histogram(frequencies));
    CHECK(sink.runs == 0);
    std::map<std::uint64_t, std::uint64_t> expected;
    for (const auto& [key, count] : host_counts(batch, k, true)) ++expected[count];
    std::map<std::uint64_t, std::uint64_t> got(frequencies.begin(), frequencies.end());
    INFO("k=" << k);
    CHECK(got == expected);
    CHECK(expected.rbegin()->first > 65536);
  }
}

// Issue 20: the room is sized from free memory measured before it is
// allocated; when the allocation fails (another process took the memory),
// half the room is tried. A device share of 8 sizes the first room at 8x
// the free memory (capped at 2^32 k-mers, ~160 GB), which no card holds.
TEST_CASE("a room the device cannot hold is halved until it fits", "[gpu][kmer]") {
  std::mt19937_64 rng(std::random_device{}());
  kmer::EngineParams params;
  params.k = 21;
  params.canonical = true;
  params.memory_budget = ~std::size_t{0};
  params.tunables.gpu_device_share = 8.0;
  CollectingSink sink;
  auto engine = kmer::make_gpu_engine(params, sink);
  const io::SequenceBatch batch = random_batch(rng, 4000, 250, true);
  engine->add(batch);
  engine->finish();
  CHECK(sink.counts == host_counts(batch, 21, true));
}
