// fastq-trim's statistics and reports: ReadStats on a hand-checked case,
// per-thread merging, the JSON sections the trimming fills, and the whole
// JSON report against fastp 0.23.2's on real reads with trimming and
// filtering off (skipped with a warning when fastp or the Debian example
// data are not installed; CI installs both).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/sequence_reader.hpp"
#include "preprocess/report/duplication.hpp"
#include "preprocess/report/html_report.hpp"
#include "preprocess/report/json_report.hpp"
#include "preprocess/report/read_stats.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::preprocess;
namespace fs = std::filesystem;

namespace {

const char* const kFastp = "/usr/bin/fastp";
const char* const kShovillR1 = "/usr/share/doc/shovill-examples/R1.fq.gz";
const char* const kShovillR2 = "/usr/share/doc/shovill-examples/R2.fq.gz";
const char* const kAdapterRemovalR1 = "/usr/share/doc/adapterremoval/examples/reads_1.fq.gz";
const char* const kAdapterRemovalR2 = "/usr/share/doc/adapterremoval/examples/reads_2.fq.gz";

bool fastp_available() {
  static const bool available = fs::exists(kFastp);
  return available;
}

std::string json_text(const FastpReport& report) {
  std::ostringstream out;
  write_fastp_json(report, out);
  return out.str();
}

std::vector<seqfuse::io::SequenceRecord> read_all_records(const std::string& path) {
  std::vector<seqfuse::io::SequenceRecord> records;
  seqfuse::io::SequenceReader reader(path);
  seqfuse::io::SequenceRecord rec;
  while (reader.next(rec)) records.push_back(rec);
  return records;
}

// One side's statistics, before == after (nothing trimmed or dropped).
struct Side {
  ReadStats before, after;
  explicit Side(bool read2) : before(0, read2), after(0, read2) {}
};

}  // namespace

// Hand-checked: qualities 'I' 40, '5' 20, '+' 10, '!' 0, '?' 30.
TEST_CASE("ReadStats counts a hand-checked pair of reads", "[preprocess][report]") {
  ReadStats s(3);
  s.add("ACGTA", "II5+!");
  s.add("AC", "??");
  CHECK(s.reads() == 2);
  CHECK(s.bases() == 7);
  CHECK(s.cycles() == 5);
  CHECK(s.mean_length() == 3);  // 7 / 2, integer division as fastp's
  CHECK(s.q30_bases() == 4);
  CHECK(s.q20_bases() == 5);
  CHECK(s.gc_bases() == 3);
  CHECK(s.base_count('A') == 3);
  CHECK(s.base_count('T') == 1);
  CHECK(s.base_count('N') == 0);
  CHECK(s.mean_quality_curve() == std::vector<double>{35, 35, 20, 10, 0});
  // 'A' at cycles 1 and 5 only; elsewhere the mean curve stands in.
  CHECK(s.quality_curve('A') == std::vector<double>{35, 35, 20, 10, 0});
  CHECK(s.quality_curve('C') == std::vector<double>{35, 35, 20, 10, 0});
  CHECK(s.quality_curve('G') == std::vector<double>{35, 35, 20, 10, 0});
  CHECK(s.content_curve('A') == std::vector<double>{1, 0, 0, 0, 1});
  CHECK(s.content_curve('C') == std::vector<double>{0, 1, 0, 0, 0});
  CHECK(s.gc_content_curve() == std::vector<double>{0, 1, 1, 0, 0});
  // One 5-mer, ACGTA: codes A0 C2 G3 T1 A0 -> 0b0010110100.
  CHECK(ReadStats::kmer_name(0b0010110100) == "ACGTA");
  CHECK(ReadStats::kmer_name(0) == "AAAAA");
  CHECK(ReadStats::kmer_name(1) == "AAAAT");
  std::uint64_t kmers = 0;
  for (const std::uint64_t n : s.kmer_counts()) kmers += n;
  CHECK(kmers == 1);
  CHECK(s.kmer_counts()[0b0010110100] == 1);
}

TEST_CASE("ReadStats: 5-mers skip N and lower case; classes by the low 3 bits",
          "[preprocess][report]") {
  ReadStats s;
  s.add("ACGTNACGTAC", std::string(11, 'I'));  // ACGTA and CGTAC only
  s.add("acgtacgt", std::string(8, 'I'));      // no 5-mer; counted as A, C, G, T
  std::uint64_t kmers = 0;
  for (const std::uint64_t n : s.kmer_counts()) kmers += n;
  CHECK(kmers == 2);
  CHECK(s.base_count('N') == 1);
  CHECK(s.base_count('A') == 3 + 2);
  CHECK(s.gc_bases() == 5 + 4);
  CHECK(s.cycles() == 11);

  ReadStats empty;
  CHECK(empty.cycles() == 0);
  CHECK(empty.bases() == 0);
  CHECK(empty.mean_length() == 0);
}

TEST_CASE("ReadStats merged from parts equals one instance", "[preprocess][report]") {
  const std::vector<std::pair<std::string, std::string>> reads = {
      {"ACGTACGTTT", "IIIII#####"},
      {"ACG", "5?5"},
      {"NNACGTAGGC", "!!IIIII???"},
      {"", ""},
      {"GGGGGGGGGGGGGG", std::string(14, '?')},
      {"TTA", "+++"}};
  ReadStats whole(8);
  for (const auto& [seq, qual] : reads) whole.add(seq, qual);
  // Parts of unequal lengths, one empty, merged in a different order.
  ReadStats a(8), b(100), c(0), merged(8);
  for (std::size_t i = 0; i < reads.size(); ++i)
    (i < 2 ? a : b).add(reads[i].first, reads[i].second);
  merged.merge(c);
  merged.merge(b);
  merged.merge(a);

  FilterCounts counts;
  counts.add(ReadFate::passed, reads.size());
  FastpReport one{.read1_before = &whole, .read1_after = &whole, .counts = &counts};
  FastpReport parts{.read1_before = &merged, .read1_after = &merged, .counts = &counts};
  CHECK(json_text(one) == json_text(parts));
  CHECK(merged.cycles() == 14);
}

TEST_CASE("Duplication counts repeated reads and pairs, from any thread order",
          "[preprocess][report]") {
  Duplication dup;
  CHECK(dup.rate() == 0.0);
  CHECK_FALSE(dup.check_read("ACGTACGT"));
  CHECK(dup.check_read("ACGTACGT"));
  CHECK_FALSE(dup.check_read("ACGTACGA"));
  CHECK(dup.reads() == 3);
  CHECK(dup.duplicates() == 1);
  CHECK(dup.rate() == Approx(1.0 / 3.0));

  Duplication pairs;
  CHECK_FALSE(pairs.check_pair("ACGT", "TTGG"));
  CHECK(pairs.check_pair("ACGT", "TTGG"));
  // Read 2's positions continue from read 1's length: a pair hashes as its
  // concatenation, so another split of the same letters is the same pair.
  CHECK(pairs.check_pair("ACG", "TTTGG"));
  CHECK_FALSE(pairs.check_pair("TTGG", "ACGT"));
  // A caller's own tally, added once, counts as the calls one by one.
  Duplication tallied;
  Duplication::Tally tally;
  CHECK_FALSE(tallied.check_read("ACGTACGT", tally));
  CHECK(tallied.check_read("ACGTACGT", tally));
  CHECK_FALSE(tallied.check_pair("ACGT", "TTGG", tally));
  CHECK(tallied.check_pair("ACG", "TTTGG", tally));
  CHECK(tally.reads == 4);
  CHECK(tally.duplicates == 2);
  CHECK(tallied.reads() == 0);
  tallied.add(tally);
  CHECK(tallied.reads() == 4);
  CHECK(tallied.rate() == Approx(0.5));
  CHECK(Duplication::memory_bytes(1) == std::size_t{1} << 29);
  CHECK(Duplication::memory_bytes(3) == std::size_t{1} << 30);
  CHECK_THROWS_AS(Duplication(0), seqfuse::Error);
  CHECK_THROWS_AS(Duplication(7), seqfuse::Error);
}

// Workers check a chunk's sums at once (prefetched); the counts must be
// those of one check per pair, whatever the chunks and threads, and on
// huge pages (many_reads) as on small ones.
TEST_CASE("Duplication::check_sums counts as check_pair one by one", "[preprocess][report]") {
  std::mt19937_64 rng(20261127);
  std::vector<std::string> pool(300);
  for (std::string& read : pool) {
    read.resize(20 + rng() % 130);
    for (char& c : read) c = "ACGTN"[rng() % 5];
  }
  Duplication one_by_one;
  Duplication batched(1, true);
  std::vector<std::uint64_t> sums;
  for (int i = 0; i < 20000; ++i) {  // 6,000 pairs possible: most repeat
    const std::string& r1 = pool[rng() % pool.size()];
    const std::string& r2 = pool[rng() % 20];
    (void)one_by_one.check_pair(r1, r2);
    sums.push_back(batched.pair_sum(r1, r2));
  }
  // Chunks of 1 to 1000 sums (shorter than the prefetch distance too),
  // taken round-robin by three threads.
  std::vector<std::span<const std::uint64_t>> chunks;
  for (std::size_t begin = 0; begin < sums.size();) {
    const std::size_t n = std::min<std::size_t>(1 + rng() % 1000, sums.size() - begin);
    chunks.push_back(std::span<const std::uint64_t>(sums).subspan(begin, n));
    begin += n;
  }
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < 3; ++t)
    workers.emplace_back([&, t] {
      for (std::size_t c = t; c < chunks.size(); c += 3) {
        Duplication::Tally tally;
        batched.check_sums(chunks[c], tally);
        batched.add(tally);
      }
    });
  for (std::thread& w : workers) w.join();
  REQUIRE(one_by_one.reads() == 20000);
  CHECK(one_by_one.duplicates() > 10000);
  CHECK(batched.reads() == one_by_one.reads());
  CHECK(batched.duplicates() == one_by_one.duplicates());
}

// fastp 0.23.2's sum written out as fastp's Evaluator does it, for one
// accuracy level's last array: its primes (the first above 10000, then the
// first above each last + 10000), index (p x hashes + hashes - 1) & (512 x
// hashes - 1), weights A 7, T 222, C 74, G 31, else 13.
std::uint64_t fastp_reference_sum(const std::string& seq, std::uint64_t offset, int hashes) {
  std::vector<std::uint64_t> primes;
  for (std::uint64_t n = 10000; primes.size() < 512 * std::size_t(hashes);) {
    ++n;
    bool prime = true;
    for (std::uint64_t i = 2; double(i) <= std::sqrt(double(n)); ++i)
      if (n % i == 0) {
        prime = false;
        break;
      }
    if (prime) {
      primes.push_back(n);
      n += 10000;
    }
  }
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::uint64_t p = offset + i;
    const char c = seq[i];
    const std::uint64_t w = c == 'A' ? 7 : c == 'T' ? 222 : c == 'C' ? 74 : c == 'G' ? 31 : 13;
    sum += primes[(p * hashes + hashes - 1) & (512 * std::uint64_t(hashes) - 1)] * (w + p);
  }
  return sum;
}

// The table lookups Duplication::fastp_sum uses (a prime per position
// modulo 4096, a weight per letter) against the formula, at positions past
// 4096 and for the hash counts of levels 1 (2), 3 (4) and 6 (6).
TEST_CASE("Duplication's sum equals fastp's formula at any position", "[preprocess][report]") {
  std::mt19937_64 rng(20261126);
  const std::string letters = "ACGTNacgtn.";
  // Level 6's array is 4 GiB of address space (untouched, so no memory),
  // more than a sanitizer build's allocator is asked to take here.
#if defined(__SANITIZE_ADDRESS__)
  const std::vector<std::pair<int, int>> levels = {{1, 2}, {3, 4}};
#else
  const std::vector<std::pair<int, int>> levels = {{1, 2}, {3, 4}, {6, 6}};
#endif
  for (const auto& [level, hashes] : levels) {
    const Duplication dup(level);
    for (int round = 0; round < 20; ++round) {
      std::string seq(rng() % 9000, 'A');
      for (char& c : seq) c = letters[rng() % letters.size()];
      const std::uint64_t offset = round % 2 == 0 ? 0 : rng() % 20000;
      INFO("level " << level << ", length " << seq.size() << ", offset " << offset);
      CHECK(dup.fastp_sum(seq, offset) == fastp_reference_sum(seq, offset, hashes));
    }
  }
}

TEST_CASE("insert_size_peak takes the first most frequent size, not the unknown bin",
          "[preprocess][report]") {
  CHECK(insert_size_peak({}) == 0);
  CHECK(insert_size_peak({0, 0, 0, 9}) == 0);
  CHECK(insert_size_peak({0, 3, 5, 5, 1, 99}) == 2);
}

// The sections the trimming fills, against text written out from fastp
// 0.23.2's reporters (filterresult.cpp) for the same counts.
TEST_CASE("JSON sections of adapters, poly-X, correction and complexity", "[preprocess][report]") {
  ReadStats r1, r2;
  r1.add("ACGT", "IIII");
  r2.add("ACGT", "IIII");
  FilterCounts c;
  c.add(ReadFate::passed, 2);
  c.add(ReadFate::low_complexity, 4);
  c.adapter_trimmed_reads = 120;
  c.adapter_trimmed_bases = 3000;
  c.adapters_read1 = {{"AGATCGGAAGAGC", 100}, {"A", 1}, {"AG", 5}};
  c.adapters_read2 = {};
  c.polyx_reads = {1, 2, 3, 4};  // A, C, G, T
  c.polyx_bases = {10, 20, 30, 40};
  c.corrected_reads = 7;
  c.corrections[('A' & 7) * 8 + ('C' & 7)] = 5;
  c.corrections[('G' & 7) * 8 + ('T' & 7)] = 6;
  c.insert_sizes.assign(kInsertSizeMax + 1, 0);
  c.insert_sizes[3] = 2;
  c.insert_sizes[kInsertSizeMax] = 8;
  FastpReport r{.paired = true,
                .read1_before = &r1,
                .read1_after = &r1,
                .read2_before = &r2,
                .read2_after = &r2,
                .counts = &c,
                .duplication_rate = 0.125,
                .adapter_cutting = true,
                .adapter1 = "AGATCGGAAGAGC",
                .polyx_trimming = true,
                .correction = true,
                .complexity_filter = true,
                .command = "seqfuse fastq-trim -i \"a b\".fq"};
  const std::string text = json_text(r);
  CHECK_THAT(text, Catch::Contains("\t\"filtering_result\": {\n"
                                   "\t\t\"passed_filter_reads\": 2,\n"
                                   "\t\t\"corrected_reads\": 7,\n"
                                   "\t\t\"corrected_bases\": 11,\n"
                                   "\t\t\"low_quality_reads\": 0,\n"
                                   "\t\t\"too_many_N_reads\": 0,\n"
                                   "\t\t\"low_complexity_reads\": 4,\n"
                                   "\t\t\"too_short_reads\": 0,\n"
                                   "\t\t\"too_long_reads\": 0\n"
                                   "\t},\n"
                                   "\t\"duplication\": {\n"
                                   "\t\t\"rate\": 0.125\n"
                                   "\t},\n"
                                   "\t\"insert_size\": {\n"
                                   "\t\t\"peak\": 3,\n"
                                   "\t\t\"unknown\": 8,\n"
                                   "\t\t\"histogram\": [0,0,0,2,0,"));
  // "A" is under 1% of 106 and goes to "others".
  CHECK_THAT(text, Catch::Contains("\t\"adapter_cutting\": {\n"
                                   "\t\t\"adapter_trimmed_reads\": 120,\n"
                                   "\t\t\"adapter_trimmed_bases\": 3000,\n"
                                   "\t\t\"read1_adapter_sequence\": \"AGATCGGAAGAGC\",\n"
                                   "\t\t\"read2_adapter_sequence\": \"unspecified\",\n"
                                   "\t\t\"read1_adapter_counts\": {\"AG\":5, "
                                   "\"AGATCGGAAGAGC\":100, \"others\":1},\n"
                                   "\t\t\"read2_adapter_counts\": {}\n"
                                   "\t},\n"
                                   "\t\"polyx_trimming\": \t{\n"
                                   "\t\t\"total_polyx_trimmed_reads\": 10,\n"
                                   "\t\t\"polyx_trimmed_reads\":{\"A\": 1, \"T\": 4, \"C\": 2, "
                                   "\"G\": 3},\n"
                                   "\t\t\"total_polyx_trimmed_bases\": 100,\n"
                                   "\t\t\"polyx_trimmed_bases\":{\"A\": 10, \"T\": 40, \"C\": 20, "
                                   "\"G\": 30}\n"
                                   "\t},\n"
                                   "\t\"read1_before_filtering\": {\n"));
  CHECK_THAT(text, Catch::EndsWith("\t\"command\": \"seqfuse fastq-trim -i \\\"a b\\\".fq\"\n}"));
  const auto parsed = nlohmann::json::parse(text);  // valid JSON
  CHECK(parsed["summary"]["sequencing"] == "paired end (4 cycles + 4 cycles)");
  CHECK(parsed["read2_after_filtering"]["kmer_count"].size() == 1024);

  FastpReport missing = r;
  missing.read2_after = nullptr;
  CHECK_THROWS_AS(json_text(missing), seqfuse::Error);
}

namespace {

// Runs fastp with trimming and filtering off (-A -G -Q -L; one thread, so
// the insert-size histogram covers every pair) and returns its JSON text.
std::string run_fastp(const seqfuse::test::TempDir& dir, const std::string& in1,
                      const std::string& in2) {
  const fs::path json = dir.file("fastp.json");
  std::string command = std::string(kFastp) + " -A -G -Q -L -w 1 -i " + in1;
  if (!in2.empty()) command += " -I " + in2;
  command += " -j " + json.string() + " -h " + dir.file("fastp.html").string() + " 2>" +
             dir.file("fastp.log").string();
  REQUIRE(std::system(command.c_str()) == 0);
  return seqfuse::test::slurp(json);
}

// The report our classes write for the same reads, the statistics kept in
// `parts` per-thread instances, filled on as many threads and merged, as the
// trimming's threads will.
std::string our_report(const std::string& in1, const std::string& in2,
                       const nlohmann::json& fastp_json, std::size_t parts) {
  const auto reads1 = read_all_records(in1);
  const std::vector<seqfuse::io::SequenceRecord> reads2 =
      in2.empty() ? std::vector<seqfuse::io::SequenceRecord>{} : read_all_records(in2);
  const bool paired = !in2.empty();
  if (paired) REQUIRE(reads1.size() == reads2.size());

  std::vector<Side> part1, part2;
  for (std::size_t t = 0; t < parts; ++t) {
    part1.emplace_back(false);
    part2.emplace_back(true);
  }
  // Each part on its own thread, taking packs of 1000 reads in turn as
  // fastp's threads do, all feeding one Duplication.
  Duplication dup;
  auto work = [&](std::size_t t) {
    for (std::size_t i = t * 1000; i < reads1.size(); i += parts * 1000) {
      for (std::size_t j = i; j < std::min(i + 1000, reads1.size()); ++j) {
        part1[t].before.add(reads1[j].seq, reads1[j].qual);
        part1[t].after.add(reads1[j].seq, reads1[j].qual);
        if (paired) {
          part2[t].before.add(reads2[j].seq, reads2[j].qual);
          part2[t].after.add(reads2[j].seq, reads2[j].qual);
          dup.check_pair(reads1[j].seq, reads2[j].seq);
        } else {
          dup.check_read(reads1[j].seq);
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < parts; ++t) threads.emplace_back(work, t);
  for (std::thread& thread : threads) thread.join();
  Side all1(false), all2(true);
  for (std::size_t t = 0; t < parts; ++t) {
    all1.before.merge(part1[t].before);
    all1.after.merge(part1[t].after);
    all2.before.merge(part2[t].before);
    all2.after.merge(part2[t].after);
  }

  FilterCounts counts;
  counts.add(ReadFate::passed, paired ? 2 * reads1.size() : reads1.size());
  if (paired) {
    // The overlap analysis that fills the histogram is the trimming's; here
    // fastp's own histogram goes in, and the peak is ours to compute.
    const auto& hist = fastp_json["insert_size"]["histogram"];
    counts.insert_sizes.assign(hist.size() + 1, 0);
    for (std::size_t d = 0; d < hist.size(); ++d)
      counts.insert_sizes[d] = hist[d].get<std::uint64_t>();
    counts.insert_sizes.back() = fastp_json["insert_size"]["unknown"].get<std::uint64_t>();
  }
  FastpReport report{.paired = paired,
                     .read1_before = &all1.before,
                     .read1_after = &all1.after,
                     .read2_before = paired ? &all2.before : nullptr,
                     .read2_after = paired ? &all2.after : nullptr,
                     .counts = &counts,
                     .duplication_rate = dup.rate(),
                     .command = "seqfuse fastq-trim"};
  return json_text(report);
}

// The text without its "command" line, which names the program.
std::string without_command(const std::string& text) {
  const auto at = text.rfind("\t\"command\": ");
  return at == std::string::npos ? text : text.substr(0, at);
}

void compare_with_fastp(const std::string& in1, const std::string& in2) {
  if (!fastp_available() || !fs::exists(in1) || (!in2.empty() && !fs::exists(in2))) {
    WARN("fastp or " << in1 << " is not installed; skipping the comparison with fastp");
    return;
  }
  seqfuse::test::TempDir dir;
  const std::string theirs_text = run_fastp(dir, in1, in2);
  nlohmann::json theirs = nlohmann::json::parse(theirs_text);
  for (const std::size_t parts : {1, 3}) {
    INFO(in1 << " " << in2 << ", statistics merged from " << parts << " parts");
    const std::string ours_text = our_report(in1, in2, theirs, parts);
    nlohmann::json ours = nlohmann::json::parse(ours_text);
    CHECK(ours["summary"]["fastp_version"] == "0.23.2");
    ours["summary"].erase("fastp_version");
    ours.erase("command");
    nlohmann::json expected = theirs;
    expected["summary"].erase("fastp_version");
    expected.erase("command");
    // Key for key: the patch that turns ours into fastp's is empty.
    const nlohmann::json patch = nlohmann::json::diff(ours, expected);
    INFO("differences: " << patch.dump().substr(0, 2000));
    CHECK(patch.empty());
    // And character for character (tabs, newlines, number formatting).
    CHECK(without_command(ours_text) == without_command(theirs_text));
  }
}

// Reads fastp's buffers and 5-mer counting are tested hardest by: lengths
// from 1 to past fastp's initial buffer (evaluated length + 1024), N, lower
// case and other letters, every quality byte, and repeated reads.
void write_varied_fastq(const fs::path& path, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ofstream out(path);
  const std::string letters = "ACGTACGTACGTACGTNacgtnRY";
  std::string previous_seq, previous_qual;
  for (int i = 0; i < 3000; ++i) {
    std::string seq, qual;
    if (i % 50 == 7) {
      seq = previous_seq;  // a duplicate
      qual = previous_qual;
    } else {
      const std::size_t length = i == 1234 ? 2600 : 1 + rng() % 300;
      for (std::size_t j = 0; j < length; ++j) {
        seq += letters[rng() % letters.size()];
        qual += static_cast<char>('!' + rng() % 42);
      }
    }
    out << "@r" << i << "\n" << seq << "\n+\n" << qual << "\n";
    previous_seq = seq;
    previous_qual = qual;
  }
}

}  // namespace

TEST_CASE("JSON report equals fastp's: shovill reads, single end", "[preprocess][report]") {
  compare_with_fastp(kShovillR1, "");
}

TEST_CASE("JSON report equals fastp's: shovill reads, paired end", "[preprocess][report]") {
  compare_with_fastp(kShovillR1, kShovillR2);
}

TEST_CASE("JSON report equals fastp's: adapterremoval reads, single and paired end",
          "[preprocess][report]") {
  compare_with_fastp(kAdapterRemovalR1, "");
  compare_with_fastp(kAdapterRemovalR1, kAdapterRemovalR2);
}

namespace {

bool multiqc_available() {
  static const bool available = std::system("command -v multiqc >/dev/null 2>&1") == 0;
  return available;
}

// Lines of a tab-separated file, split.
std::vector<std::vector<std::string>> read_tsv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream s(line);
    std::string field;
    while (std::getline(s, field, '\t')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

}  // namespace

// MultiQC 1.14's fastp module finds "*fastp.json", names the sample after the
// path following "-i" in "command", and puts six values in the general stats.
TEST_CASE("MultiQC reads the JSON report as a fastp report", "[preprocess][report]") {
  if (!multiqc_available()) {
    WARN("multiqc is not on PATH; skipping the MultiQC check");
    return;
  }
  ReadStats before, after;
  for (int i = 0; i < 3; ++i) {
    before.add("ACGT", "IIII");
    after.add("ACGT", "IIII");
  }
  before.add("NNNN", "!!!!");
  FilterCounts counts;
  counts.add(ReadFate::passed, 3);
  counts.add(ReadFate::too_many_n, 1);
  FastpReport report{
      .read1_before = &before,
      .read1_after = &after,
      .counts = &counts,
      .duplication_rate = 0.5,
      .command =
          "seqfuse fastq-trim -i /data/sampleA.fq.gz -o trimmed.fq.gz -j sampleA.fastp.json"};
  seqfuse::test::TempDir dir;
  fs::create_directory(dir.file("in"));
  {
    std::ofstream json(dir.file("in") / "sampleA.fastp.json");
    write_fastp_json(report, json);
  }
  const std::string command = "multiqc -q -f -o " + dir.file("out").string() + " " +
                              dir.file("in").string() + " >" + dir.file("multiqc.log").string() +
                              " 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  const auto rows = read_tsv(dir.file("out") / "multiqc_data" / "multiqc_general_stats.txt");
  REQUIRE(rows.size() == 2);  // the header and one sample: one fastp report found
  REQUIRE(rows[0].size() == rows[1].size());
  CHECK(rows[1][0] == "sampleA");
  const std::vector<std::pair<std::string, double>> expected = {
      {"pct_duplication", 50.0},           {"after_filtering_q30_rate", 1.0},
      {"after_filtering_q30_bases", 12.0}, {"filtering_result_passed_filter_reads", 3.0},
      {"after_filtering_gc_content", 0.5}, {"pct_surviving", 75.0}};
  for (const auto& [key, value] : expected) {
    INFO(key);
    bool found = false;
    for (std::size_t c = 1; c < rows[0].size(); ++c) {
      const std::string& header = rows[0][c];
      if (header.size() >= key.size() && header.ends_with("-" + key)) {
        CHECK(std::stod(rows[1][c]) == Approx(value));
        found = true;
      }
    }
    CHECK(found);
  }
}

TEST_CASE("HTML report: one self-contained page with every section", "[preprocess][report]") {
  ReadStats r1_before, r1_after, r2_before, r2_after;
  for (int i = 0; i < 20; ++i) {
    const std::string seq = i % 3 == 0 ? "ACGTNACGTTGCA" : "GGGCCCAATTACG";
    r1_before.add(seq, std::string(seq.size(), i % 2 == 0 ? 'I' : '+'));
    r2_before.add(seq.substr(2), std::string(seq.size() - 2, '5'));
    if (i % 4 != 0) {
      r1_after.add(seq, std::string(seq.size(), 'I'));
      r2_after.add(seq.substr(2), std::string(seq.size() - 2, '5'));
    }
  }
  FilterCounts c;
  c.add(ReadFate::passed, 30);
  c.add(ReadFate::low_quality, 10);
  c.adapters_read1 = {{"AGATCGGAAGAGC", 12}};
  c.insert_sizes[150] = 9;
  c.insert_sizes[151] = 4;
  c.insert_sizes[kInsertSizeMax] = 7;
  FastpReport r{.paired = true,
                .read1_before = &r1_before,
                .read1_after = &r1_after,
                .read2_before = &r2_before,
                .read2_after = &r2_after,
                .counts = &c,
                .duplication_rate = 0.05,
                .adapter_cutting = true,
                .polyx_trimming = true,
                .command = "seqfuse fastq-trim -i a.fq -I b.fq",
                .title = "sample <A> & B"};
  std::ostringstream out;
  write_fastp_html(r, out);
  const std::string html = out.str();
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<title>sample &lt;A&gt; &amp; B</title>"));
  CHECK_THAT(html, Catch::EndsWith("</html>\n"));
  // Self-contained: no scripts, style sheets or images from elsewhere.
  CHECK_THAT(html, !Catch::Contains("<script"));
  CHECK_THAT(html, !Catch::Contains("<link"));
  CHECK_THAT(html, !Catch::Contains("src="));
  for (const char* id :
       {"summary", "filtering", "duplication", "insert-size", "adapters", "polyx", "curves"}) {
    CHECK_THAT(html, Catch::Contains(std::string("id='") + id + "'"));
  }
  std::size_t charts = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++charts;
  CHECK(charts == 1 + 4 * 2);  // insert sizes, then quality and content per read and stage
  CHECK_THAT(html, Catch::Contains("<code>AGATCGGAAGAGC</code>"));
  CHECK_THAT(html, Catch::Contains("peak 150;"));
  CHECK_THAT(html, Catch::Contains("5.0000%"));

  FastpReport single{.read1_before = &r1_before, .read1_after = &r1_after, .counts = &c};
  std::ostringstream single_out;
  write_fastp_html(single, single_out);
  CHECK_THAT(single_out.str(), Catch::Contains("<title>fastp report</title>"));
  CHECK_THAT(single_out.str(), !Catch::Contains("id='insert-size'"));
}

TEST_CASE("JSON report equals fastp's: varied lengths, N, lower case, repeats; no reads",
          "[preprocess][report]") {
  seqfuse::test::TempDir dir;
  write_varied_fastq(dir.file("varied_1.fq"), 11);
  write_varied_fastq(dir.file("varied_2.fq"), 12);
  compare_with_fastp(dir.file("varied_1.fq").string(), "");
  compare_with_fastp(dir.file("varied_1.fq").string(), dir.file("varied_2.fq").string());
  std::ofstream(dir.file("empty.fq")).flush();  // no reads: 0 cycles, rates 0
  compare_with_fastp(dir.file("empty.fq").string(), "");
}

// Adapter sequences as fastp's reports list them: each making at least 1 %
// of those cut, shorter first, then the rest as one count ("others" in the
// JSON, a row in the HTML). A run lists them from its workers' counts
// without merging those: the same listing as from the merged counts.
TEST_CASE("adapter sequences: listed at 1 %, the rest as one; from the workers' counts",
          "[preprocess][report]") {
  std::mt19937 rng(20261127);
  FilterCounts whole;
  std::vector<FilterCounts> workers(7);
  for (int i = 0; i < 4000; ++i) {
    // A few frequent sequences, some near 1 % (40 of 4000), and a long tail
    // of one-off ones; workers get unequal shares.
    const int kind = static_cast<int>(rng() % 100);
    std::string sequence = kind < 25   ? std::string("AGATCGGAAGAGC").substr(0, 3 + rng() % 4)
                           : kind < 30 ? "CT" + std::to_string(rng() % 5)
                                       : std::to_string(rng());
    const std::size_t w = std::min<std::size_t>(rng() % 10, workers.size() - 1);
    count_adapter(workers[w].adapters_read1, sequence);
    count_adapter(whole.adapters_read1, sequence);
  }
  FilterCounts merged;
  std::vector<const AdapterCounts*> parts;
  for (const FilterCounts& w : workers) {
    merged.merge(w);
    parts.push_back(&w.adapters_read1);
  }
  CHECK(merged.adapters_read1 == whole.adapters_read1);

  const AdapterListing listing = list_adapters(whole.adapters_read1);
  CHECK(listing.total == 4000);
  std::uint64_t listed = 0;
  for (std::size_t k = 0; k < listing.listed.size(); ++k) {
    const auto& [sequence, n] = listing.listed[k];
    CHECK(n * 100 >= listing.total);
    CHECK(whole.adapters_read1.at(sequence) == n);
    if (k > 0) CHECK(ShorterFirst{}(listing.listed[k - 1].first, sequence));
    listed += n;
  }
  std::size_t frequent = 0;
  for (const auto& entry : whole.adapters_read1) frequent += entry.second * 100 >= 4000 ? 1 : 0;
  CHECK(listing.listed.size() == frequent);
  CHECK(listing.listed.size() >= 5);
  CHECK(listing.others == 4000 - listed);
  for (const unsigned threads : {1U, 3U}) {
    const AdapterListing from_parts = list_adapters(parts, threads);
    CHECK(from_parts.listed == listing.listed);
    CHECK(from_parts.total == listing.total);
    CHECK(from_parts.others == listing.others);
  }

  FilterCounts c;
  c.adapters_read1 = whole.adapters_read1;
  ReadStats stats(8);
  FastpReport r{
      .read1_before = &stats, .read1_after = &stats, .counts = &c, .adapter_cutting = true};
  std::ostringstream html;
  write_fastp_html(r, html);
  CHECK_THAT(html.str(), Catch::Contains("<code>AGAT</code>"));
  CHECK_THAT(html.str(), Catch::Contains("<tr><td>other adapter sequences</td>"));
  CHECK_THAT(html.str(), !Catch::Contains("all adapter sequences"));
  const auto json = nlohmann::json::parse(json_text(r));
  CHECK(json["adapter_cutting"]["read1_adapter_counts"]["others"] == listing.others);
  CHECK(json["adapter_cutting"]["read1_adapter_counts"].size() == listing.listed.size() + 1);

  // None at 1 %: one row for all of them.
  c.adapters_read1.clear();
  for (int i = 0; i < 200; ++i) count_adapter(c.adapters_read1, std::to_string(i));
  std::ostringstream spread;
  write_fastp_html(r, spread);
  CHECK_THAT(spread.str(), Catch::Contains("<tr><td>all adapter sequences</td>"));
  CHECK_THAT(spread.str(), !Catch::Contains("<tr><td><code>"));
}
