// The batch writer: records formatted in chunks on several threads must give
// the bytes that writing them one at a time gives, for every format, with and
// without traceback, whatever the thread count or chunk size.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "align/ordered_output.hpp"
#include "align/output_format.hpp"
#include "core/output_file.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::align;

namespace {

// Random records with the shapes the engines produce: names of any length
// (empty too), unaligned pairs (empty CIGAR), local alignments with soft
// clips and long CIGARs of every op.
struct RandomRecords {
  std::vector<std::string> query_names, target_names, sequences;
  std::vector<AlignResult> results;
  std::vector<AlignmentRecord> records;

  RandomRecords(std::size_t count, std::uint32_t seed) {
    std::mt19937 rng(seed);
    const auto below = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const auto text = [&](int length, const char* letters, int alphabet) {
      std::string s;
      for (int i = 0; i < length; ++i) s += letters[below(alphabet)];
      return s;
    };
    for (std::size_t i = 0; i < count; ++i) {
      query_names.push_back(text(below(12), "abcdefgh_.|0123456789", 21));
      target_names.push_back(text(below(30), "ABCXYZ-:0123456789", 18));
      AlignResult r;
      r.score = below(2000) - 300;
      if (below(8) != 0) {  // aligned: a CIGAR of runs
        r.traced = true;
        static const char kOps[] = "=XID";
        int query_cols = 0, target_cols = 0;
        for (int run = 0, runs = 1 + below(40); run < runs; ++run) {
          const char op = kOps[below(4)];
          const int n = 1 + below(below(10) == 0 ? 500 : 9);
          r.cigar += std::to_string(n);
          r.cigar += op;
          r.alignment_length += n;
          if (op == '=') r.matches += n;
          if (op != 'D') query_cols += n;
          if (op != 'I') target_cols += n;
        }
        r.query_begin = below(20);
        r.target_begin = below(20);
        r.query_end = r.query_begin + query_cols - 1;
        r.target_end = r.target_begin + target_cols - 1;
      } else {
        r.query_end = below(3) - 1;
        r.target_end = below(3) - 1;
      }
      const int query_length = std::max(0, r.query_end + 1 + below(25));
      sequences.push_back(text(query_length, "ACGTN", 5));
      results.push_back(r);
    }
    for (std::size_t i = 0; i < count; ++i)
      records.push_back({i, count - i, query_names[i], target_names[i], sequences[i],
                         sequences[i].size(), static_cast<std::size_t>(below(100000)), &results[i],
                         i % 3 == 0, i % 2 == 1, sequences[i]});
  }
};

std::vector<AlignmentWriter::Reference> references_of(const RandomRecords& in) {
  std::vector<AlignmentWriter::Reference> refs;
  for (std::size_t i = 0; i < in.target_names.size(); i += 7)
    refs.push_back({in.target_names[i], i + 1});
  return refs;
}

// batch_threads 0: record by record through write(); else write_batch.
std::string render(const RandomRecords& in, OutputFormat format, bool traceback,
                   unsigned batch_threads, std::size_t chunk, std::size_t batches = 1) {
  const seqfuse::test::TempDir dir;
  const auto path = dir.file("out.txt");
  {
    seqfuse::OutputFile out(path.string());
    AlignmentWriter writer(out, format, traceback, "seqfuse align-sw --pairs q.fa t.fa");
    writer.begin(references_of(in));
    const std::size_t n = in.records.size();
    if (batch_threads == 0) {
      for (const AlignmentRecord& r : in.records) writer.write(r);
    } else {
      // Split into `batches` calls, as the search path hands over one
      // query chunk at a time.
      for (std::size_t b = 0; b < batches; ++b) {
        const std::size_t first = n * b / batches, last = n * (b + 1) / batches;
        writer.write_batch(
            last - first, [&](std::size_t i) { return in.records[first + i]; }, batch_threads,
            chunk);
      }
    }
    out.commit();
  }
  return seqfuse::test::slurp(path);
}

}  // namespace

TEST_CASE("batch writing gives the bytes of writing record by record", "[align]") {
  // Over 1 MiB of text for SAM, so OutputFile flushes in the middle too.
  const RandomRecords in(3001, 42);
  for (OutputFormat format :
       {OutputFormat::tsv, OutputFormat::csv, OutputFormat::blast6, OutputFormat::sam}) {
    for (bool traceback : {false, true}) {
      const std::string expected = render(in, format, traceback, 0, 0);
      REQUIRE(expected.size() > 3001);
      for (unsigned threads : {1U, 2U, 7U}) {
        for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{97},
                                  std::size_t{1000}, AlignmentWriter::kBatchChunk}) {
          INFO("format " << static_cast<int>(format) << " traceback " << traceback << " threads "
                         << threads << " chunk " << chunk);
          CHECK(render(in, format, traceback, threads, chunk) == expected);
        }
        INFO("in 5 batches, threads " << threads);
        CHECK(render(in, format, traceback, threads, 13, 5) == expected);
      }
    }
  }
}

TEST_CASE("batch writing handles empty and one-record batches", "[align]") {
  const RandomRecords in(1, 7);
  const RandomRecords none(0, 7);
  for (unsigned threads : {1U, 7U}) {
    CHECK(render(in, OutputFormat::tsv, true, threads, 5) ==
          render(in, OutputFormat::tsv, true, 0, 0));
    CHECK(render(none, OutputFormat::sam, true, threads, 5) ==
          render(none, OutputFormat::sam, true, 0, 0));
  }
}

TEST_CASE("format_in_order writes chunks in order and bounds what it holds", "[align]") {
  for (unsigned threads : {1U, 2U, 7U}) {
    std::string written;
    // Chunks between the start of their formatting and their write: the
    // memory held. Catch's CHECK is not for worker threads, so count here.
    std::atomic<int> held{0}, most_held{0}, not_empty{0};
    format_in_order(
        1000, 7, threads,
        [&](std::size_t begin, std::size_t end, std::string& text) {
          if (!text.empty()) ++not_empty;
          const int now = ++held;
          int seen = most_held.load();
          while (now > seen && !most_held.compare_exchange_weak(seen, now)) {
          }
          for (std::size_t i = begin; i < end; ++i) {
            text += std::to_string(i);
            text += ',';
          }
        },
        [&](std::string_view text) {
          written += text;
          --held;
        });
    std::string expected;
    for (int i = 0; i < 1000; ++i) {
      expected += std::to_string(i);
      expected += ',';
    }
    CHECK(written == expected);
    CHECK(not_empty.load() == 0);
    CHECK(most_held.load() <= 2 * static_cast<int>(threads));
  }
}

TEST_CASE("format_in_order stops and rethrows when formatting or writing fails", "[align]") {
  for (unsigned threads : {1U, 2U, 7U}) {
    std::size_t writes = 0;
    CHECK_THROWS_WITH(format_in_order(
                          500, 3, threads,
                          [](std::size_t begin, std::size_t, std::string& text) {
                            if (begin == 90) throw std::runtime_error("format failed");
                            text.push_back('x');
                          },
                          [&](std::string_view) { ++writes; }),
                      "format failed");
    CHECK(writes <= 30);  // nothing past the failed chunk is written
    CHECK_THROWS_WITH(format_in_order(
                          500, 3, threads,
                          [](std::size_t, std::size_t, std::string& text) { text.push_back('x'); },
                          [&](std::string_view) { throw std::runtime_error("disk full"); }),
                      "disk full");
  }
}

// Seconds to write 200k traced TSV records (150 bp queries) record by record
// and in batches, hidden from normal runs ([.] tag):
//   SEQFUSE_ALIGN_BENCH_THREADS=2 seqfuse_tests '[align-output-bench]'
TEST_CASE("batch writing throughput", "[.][align-output-bench]") {
  const char* env = std::getenv("SEQFUSE_ALIGN_BENCH_THREADS");
  const unsigned threads = env != nullptr ? static_cast<unsigned>(std::atoi(env)) : 2U;
  RandomRecords in(200000, 1);
  for (std::string& s : in.sequences) s.resize(150, 'A');
  for (AlignmentRecord& r : in.records) {
    r.query_sequence = in.sequences[r.query_index];
    r.query_length = 150;
  }
  const seqfuse::test::TempDir dir;
  const auto time = [&](unsigned batch_threads) {
    double best = 1e300;
    for (int rep = 0; rep < 5; ++rep) {
      const auto start = std::chrono::steady_clock::now();
      seqfuse::OutputFile out(dir.file("bench.tsv").string());
      AlignmentWriter writer(out, OutputFormat::tsv, true, "seqfuse");
      writer.begin({});
      if (batch_threads == 0) {
        for (const AlignmentRecord& r : in.records) writer.write(r);
      } else {
        writer.write_batch(
            in.records.size(), [&](std::size_t i) { return in.records[i]; }, batch_threads);
      }
      out.commit();
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
  };
  const double one_by_one = time(0), batched = time(threads);
  std::cout << "200k traced TSV records: write() " << one_by_one << " s, write_batch on " << threads
            << " threads " << batched << " s (best of 5)\n";
  CHECK(batched > 0);
}
