// The parallel FASTA reader (read_all's fast path) against the sequential
// RecordParser: the same batch, field by field, over randomized inputs cut
// into many slices, and the same one-line error for bad records anywhere.
// SEQFUSE_TEST_SEED=<n> replays a failing input.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "io/batch_reader.hpp"
#include "io/parallel_fasta.hpp"
#include "io/record_parser.hpp"
#include "test_data.hpp"
#include "test_io_support.hpp"

using seqfuse::io::BatchLimits;
using seqfuse::io::ParallelFastaOptions;
using seqfuse::io::read_all;
using seqfuse::io::read_fasta_parallel;
using seqfuse::io::RecordParser;
using seqfuse::io::SequenceBatch;
namespace t = seqfuse::io::test;
using namespace std::string_literals;

namespace {

// What read_all did before the fast path: RecordParser over the whole file.
SequenceBatch sequential(const std::string& path) {
  constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();
  RecordParser parser(path);
  SequenceBatch all;
  (void)parser.fill(all, BatchLimits{.max_records = kUnlimited, .max_bases = kUnlimited});
  return all;
}

std::string error_of(const auto& read) {
  try {
    (void)read();
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "(no error)";
}

void check_same(const SequenceBatch& got, const SequenceBatch& want) {
  CHECK(got.format == want.format);
  CHECK(got.first_record == want.first_record);
  REQUIRE(got.size() == want.size());
  CHECK(got.offsets == want.offsets);
  CHECK(got.name_offsets == want.name_offsets);
  CHECK(got.comment_offsets == want.comment_offsets);
  CHECK(got.names == want.names);
  CHECK(got.comments == want.comments);
  CHECK(std::string_view(got.bases.data(), got.bases.size()) ==
        std::string_view(want.bases.data(), want.bases.size()));
  CHECK(got.quals.empty());
  CHECK(want.quals.empty());
}

class FastaMaker {
 public:
  explicit FastaMaker(std::uint64_t seed, bool headers_in_sequence = true)
      : rng_(seed), headers_in_sequence_(headers_in_sequence) {}

  std::size_t uniform(std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  // `records` records; line ends, wrapping, blank lines and letters vary per
  // file and per line.
  std::string make(std::size_t records, std::size_t max_length) {
    const bool crlf = chance(0.3);
    const bool mixed_ends = chance(0.2);
    const std::size_t width = chance(0.3) ? 0 : uniform(1, 120);  // 0: one line per sequence
    std::string text;
    auto end_line = [&] { text += (mixed_ends ? chance(0.5) : crlf) ? "\r\n" : "\n"; };
    // Blank lines before the first header, as detect_format skips them.
    while (chance(0.2)) text += chance(0.5) ? "\n" : (chance(0.5) ? "\r\n" : "\r\r\n");
    for (std::size_t r = 0; r < records; ++r) {
      text += '>';
      text += word(kNameLetters, uniform(1, 30));
      if (chance(0.6)) {
        text += blanks();
        text += word(kCommentLetters, uniform(0, 40));
        if (chance(0.2)) text += blanks();  // trailing blanks stay in the comment
      } else if (chance(0.1)) {
        text += blanks();  // blanks without a comment
      }
      end_line();
      const std::size_t length = chance(0.1) ? 0 : uniform(0, max_length);
      const std::string seq = word(chance(0.8) ? kBases : kOddSequence, length);
      const std::size_t step = width == 0 ? std::max<std::size_t>(length, 1) : width;
      for (std::size_t i = 0; i < length; i += step) {
        std::string line = seq.substr(i, step);
        // A line starting with '>' starts a record, maybe one without a name.
        if (!headers_in_sequence_ && line.front() == '>') line.front() = 'N';
        text += line;
        end_line();
        if (chance(0.02)) end_line();  // blank line inside a sequence
      }
      if (chance(0.05)) end_line();  // blank line between records
    }
    if (!text.empty() && chance(0.2)) {  // no final line end
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    }
    return text;
  }

 private:
  static constexpr std::string_view kNameLetters =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_|.:/-=>";
  static constexpr std::string_view kCommentLetters = "abcdefgXYZ0123456789 \t=;,|>";
  static constexpr std::string_view kBases = "ACGTACGTACGTacgtNn";
  // IUPAC codes, protein letters, gaps, stops; spaces, tabs and lone '\r'
  // (bytes >= 0x09 are kept as they stand) and a '>' inside a line.
  static constexpr std::string_view kOddSequence =
      "ACGTRYKMSWBDHVNacgtrykmswbdhvnEFILPQXZ*-. \t\r>uUoO";

  std::string word(std::string_view letters, std::size_t length) {
    std::string out(length, ' ');
    for (char& c : out) c = letters[uniform(0, letters.size() - 1)];
    return out;
  }
  std::string blanks() {
    std::string out;
    for (std::size_t n = uniform(1, 3); n > 0; --n) out += chance(0.7) ? ' ' : '\t';
    return out;
  }

  std::mt19937_64 rng_;
  bool headers_in_sequence_;
};

ParallelFastaOptions many_slices(FastaMaker& maker) {
  return {.threads = static_cast<unsigned>(maker.uniform(1, 9)),
          .min_slice_bytes = maker.uniform(1, 2048)};
}

}  // namespace

TEST_CASE("parallel FASTA: same batch as RecordParser on random inputs", "[io]") {
  const std::uint64_t seed = seqfuse::test::test_seed();
  CAPTURE(seed);
  FastaMaker maker(seed);
  t::ScratchDir dir;
  for (int round = 0; round < 300; ++round) {
    const std::size_t records = round < 10 ? std::size_t(round % 3) : maker.uniform(0, 400);
    const std::string text = maker.make(records, maker.chance(0.2) ? 2000 : 200);
    const std::string path = dir.write("r.fa", text);
    const ParallelFastaOptions options = many_slices(maker);
    CAPTURE(round, records, options.threads, options.min_slice_bytes, text.size());
    SequenceBatch want;
    std::string want_error;
    try {
      want = sequential(path);
    } catch (const seqfuse::Error& e) {  // a sequence line that starts with '>' and a blank
      want_error = e.what();
    }
    if (!want_error.empty()) {
      CHECK(error_of([&] {
              return read_fasta_parallel(path, std::pmr::new_delete_resource(), options);
            }) == want_error);
      CHECK(error_of([&] { return read_all(path); }) == want_error);
      continue;
    }
    const auto got = read_fasta_parallel(path, std::pmr::new_delete_resource(), options);
    // Only an input without records (blank lines at most) leaves the fast path.
    REQUIRE(got.has_value() == !want.empty());
    if (got) check_same(*got, want);
    check_same(read_all(path), want);
  }
}

TEST_CASE("parallel FASTA: a file above the small-file threshold, default options", "[io]") {
  FastaMaker maker(seqfuse::test::test_seed(), /*headers_in_sequence=*/false);
  t::ScratchDir dir;
  std::string text;
  while (text.size() < (std::size_t{12} << 20)) text += maker.make(2000, 300);
  const std::string path = dir.write("big.fa", text);
  const SequenceBatch want = sequential(path);
  check_same(read_all(path), want);
  const auto got = read_fasta_parallel(path, std::pmr::new_delete_resource(), {.threads = 7});
  REQUIRE(got.has_value());
  check_same(*got, want);
}

TEST_CASE("parallel FASTA: long records cut into continuation slices", "[io]") {
  t::ScratchDir dir;
  std::string chromosome(3u << 20, 'A');
  for (std::size_t i = 0; i < chromosome.size(); i += 61) chromosome[i] = '\n';
  for (const std::string& text :
       {">chr1 one record\n" + chromosome, ">a\nAC\n>chr\n" + chromosome + "\n>z\nGT",
        ">chr\n" + chromosome + "\n>b\nA\n>c\n\n>d\nC\n"}) {
    const std::string path = dir.write("long.fa", text);
    const SequenceBatch want = sequential(path);
    for (const unsigned threads : {2u, 5u, 16u}) {
      const auto got = read_fasta_parallel(path, std::pmr::new_delete_resource(),
                                           {.threads = threads, .min_slice_bytes = 1});
      REQUIRE(got.has_value());
      check_same(*got, want);
    }
  }
}

TEST_CASE("parallel FASTA: inputs it leaves to the sequential parser", "[io]") {
  t::ScratchDir dir;
  const std::string fasta = ">a x\nACGT\n>b\nGG\n";
  const ParallelFastaOptions options{.threads = 4, .min_slice_bytes = 1};
  auto declined = [&](const std::string& path) {
    return !read_fasta_parallel(path, std::pmr::new_delete_resource(), options).has_value();
  };
  CHECK(declined(t::write_gzip(dir.path("a.fa.gz"), fasta)));
  CHECK(declined(t::write_bgzf(dir.path("a.fa.bgz"), fasta)));
  CHECK(declined(dir.write("a.fq", t::make_fastq(20))));
  CHECK(declined(dir.write("empty.fa", "")));
  CHECK(declined(dir.write("blank.fa", "\n\r\n\r\r\n")));
  CHECK(declined(dir.write("cr-header.fa", "\r>a\nAC\n")));  // "not FASTA or FASTQ"
  CHECK(declined(dir.write("text.fa", "hello\n>a\nAC\n")));
  CHECK(declined(dir.path("missing.fa")));
  CHECK(declined(dir.path("")));  // a folder
  CHECK(declined("-"));
  // Blank lines (also "\r\r") before the first header do not.
  CHECK_FALSE(declined(dir.write("lead.fa", "\n\r\n\r\r\n" + fasta)));
}

TEST_CASE("parallel FASTA: a named pipe is read once, by the sequential parser", "[io]") {
  t::ScratchDir dir;
  const std::string fifo = dir.path("pipe.fa");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening and closing the pipe to look at it would cut off its writer
  // (SIGPIPE); ignored here so such a bug fails the test instead of killing it.
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  REQUIRE(::sigaction(SIGPIPE, &ignore, &saved) == 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << ">a x\nACGT\n>b\nGG\n"; });
  const SequenceBatch batch = read_all(fifo);
  writer.join();
  (void)::sigaction(SIGPIPE, &saved, nullptr);
  REQUIRE(batch.size() == 2);
  CHECK(batch.name(1) == "b");
  CHECK(batch.sequence(1) == "GG");
}

TEST_CASE("parallel FASTA: bad records give the sequential parser's message", "[io]") {
  const std::uint64_t seed = seqfuse::test::test_seed();
  CAPTURE(seed);
  FastaMaker maker(seed);
  t::ScratchDir dir;
  const std::vector<std::string> bad_records = {
      ">x\nAC\nG\x01T\n", ">x\nACGT\n" + std::string(37, 'A') + "\x08" + "CC\n",
      ">x\n\0\n"s,        "> desc\nAC\n",
      ">\nAC\n",          ">\t\r\nAC\n"};
  for (int round = 0; round < 120; ++round) {
    const std::size_t good = maker.uniform(0, 300);
    std::string text = maker.make(good, 150);
    if (!text.empty() && text.back() != '\n') text += '\n';
    if (text.empty()) text = ">first\nA\n";
    text += bad_records[maker.uniform(0, bad_records.size() - 1)];
    if (maker.chance(0.5)) {
      text += maker.make(maker.uniform(0, 200), 150);
      // A second bad record later on: the first one is reported.
      if (maker.chance(0.5)) text += ">\nAC\n" + maker.make(maker.uniform(0, 50), 150);
    }
    const std::string path = dir.write("bad.fa", text);
    const ParallelFastaOptions options = many_slices(maker);
    CAPTURE(round, good, options.threads, options.min_slice_bytes);
    const std::string want = error_of([&] { return sequential(path); });
    REQUIRE_THAT(want, Catch::StartsWith(path + ": record "));
    CHECK(error_of([&] {
            return read_fasta_parallel(path, std::pmr::new_delete_resource(), options);
          }) == want);
    CHECK(error_of([&] { return read_all(path); }) == want);
  }
}

TEST_CASE("parallel FASTA: a bad record in the last of many slices", "[io]") {
  t::ScratchDir dir;
  std::string text;
  for (int i = 1; i <= 5000; ++i) text += ">r" + std::to_string(i) + " c\nACGTACGTAC\nGG\n";
  text += ">r5001\nAC\x02T\n>r5002\nA\n";
  const std::string path = dir.write("late.fa", text);
  const std::string want = path + ": record 5001: binary data in sequence";
  CHECK(error_of([&] { return sequential(path); }) == want);
  CHECK(error_of([&] {
          return read_fasta_parallel(path, std::pmr::new_delete_resource(),
                                     {.threads = 8, .min_slice_bytes = 1});
        }) == want);
}

TEST_CASE("parallel FASTA: a bad line deep inside a long record, in a continuation slice", "[io]") {
  t::ScratchDir dir;
  std::string chromosome(1u << 20, 'C');
  for (std::size_t i = 0; i < chromosome.size(); i += 61) chromosome[i] = '\n';
  std::string bad = chromosome;
  bad[bad.size() / 2 + 7] = '\x03';
  for (const auto& [text, record] :
       {std::pair{">chr1\n" + bad + "\n>chr2\nAC\n", 1},
        std::pair{">chr1\n" + chromosome + "\n>chr2 c\n" + bad + "\n", 2}}) {
    const std::string path = dir.write("deep.fa", text);
    const std::string want =
        path + ": record " + std::to_string(record) + ": binary data in sequence";
    CHECK(error_of([&] { return sequential(path); }) == want);
    for (const unsigned threads : {3u, 16u})
      CHECK(error_of([&] {
              return read_fasta_parallel(path, std::pmr::new_delete_resource(),
                                         {.threads = threads, .min_slice_bytes = 1});
            }) == want);
  }
}

// Wall time of read_all against the sequential parser it replaces, on a big
// FASTA: SEQFUSE_IO_BENCH_FASTA=/tmp/x.fa seqfuse_tests '[io-bench]'
TEST_CASE("read_all throughput on plain FASTA", "[.][io-bench]") {
  const char* path = std::getenv("SEQFUSE_IO_BENCH_FASTA");
  if (path == nullptr || *path == '\0') {
    WARN("set SEQFUSE_IO_BENCH_FASTA to a FASTA file");
    return;
  }
  auto best_seconds = [](auto&& run) {
    double best = 1e300;
    for (int k = 0; k < 5; ++k) {
      const auto start = std::chrono::steady_clock::now();
      run();
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count());
    }
    return best;
  };
  std::size_t records = 0;
  const double before = best_seconds([&] { records = sequential(path).size(); });
  const double after = best_seconds([&] { records = read_all(path).size(); });
  std::cout << "read_all " << path << ": " << records << " records, sequential " << before
            << " s, parallel (" << std::thread::hardware_concurrency() << " threads) " << after
            << " s, speedup " << before / after << "\n";
}
