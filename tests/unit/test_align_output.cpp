// The alignment writers: exact lines for each format, built from hand-made
// results so every column is checked.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "align/output_format.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/version.hpp"

using namespace seqfuse::align;

namespace {

// Writes `records` in `format` to a temporary file and returns its text.
std::string render(OutputFormat format, bool traceback,
                   const std::vector<AlignmentRecord>& records) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("seqfuse-output-" + std::to_string(::getpid()) + ".txt");
  {
    seqfuse::OutputFile out(path.string());
    AlignmentWriter writer(out, format, traceback, "seqfuse align-sw q.fa t.fa");
    writer.begin({{"t1", 12}});
    for (const auto& r : records) writer.write(r);
    out.commit();
  }
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

AlignResult traced_local() {
  AlignResult r;
  r.score = 17;
  r.query_begin = 2;
  r.query_end = 8;
  r.target_begin = 0;
  r.target_end = 5;
  r.traced = true;
  r.cigar = "3=1X1I1=1D";  // 7 columns: 4 matches, 1 mismatch, 2 gap opens
  r.matches = 4;
  r.alignment_length = 7;
  return r;
}

}  // namespace

TEST_CASE("output formats are parsed by name", "[align]") {
  CHECK(parse_output_format("blast6") == OutputFormat::blast6);
  CHECK_THROWS_AS(parse_output_format("xml"), seqfuse::UsageError);
  CHECK(needs_traceback(OutputFormat::sam));
  CHECK_FALSE(needs_traceback(OutputFormat::csv));
}

TEST_CASE("each format writes its exact columns", "[align]") {
  const AlignResult r = traced_local();
  const AlignmentRecord rec{3, 0, "q1", "t1", "ACGTACGTACG", 11, 12, &r, false, false, {}};
  CHECK(render(OutputFormat::csv, false, {rec}) == "3,0,11,12,17,8,5\n");
  CHECK(render(OutputFormat::tsv, false, {rec}) ==
        "query\ttarget\tquery_len\ttarget_len\tscore\tquery_end\ttarget_end\n"
        "q1\tt1\t11\t12\t17\t8\t5\n");
  CHECK(render(OutputFormat::tsv, true, {rec}) ==
        "query\ttarget\tquery_len\ttarget_len\tscore\tquery_end\ttarget_end\tquery_begin\t"
        "target_begin\tcigar\tidentity\tmatches\talignment_len\n"
        "q1\tt1\t11\t12\t17\t8\t5\t2\t0\t3=1X1I1=1D\t0.5714\t4\t7\n");
  CHECK(render(OutputFormat::blast6, false, {rec}) ==
        "q1\tt1\t57.143\t7\t1\t2\t3\t9\t1\t6\tNA\t17\n");
  // Query residues 0-1 and 9-10 are outside the local alignment: soft clips.
  CHECK(render(OutputFormat::sam, false, {rec}) ==
        "@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:t1\tLN:12\n"
        "@PG\tID:seqfuse\tPN:seqfuse\tVN:" +
            std::string(seqfuse::kVersion) +
            "\tCL:seqfuse align-sw q.fa t.fa\n"
            "q1\t0\tt1\t1\t255\t2S3=1X1I1=1D2S\t*\t0\t0\tACGTACGTACG\t*\tAS:i:17\tNM:i:3\n");
}

TEST_CASE("a pair without aligned columns is an unmapped SAM record", "[align]") {
  AlignResult zero;
  zero.traced = true;
  const AlignmentRecord rec{0, 0, "q1", "t1", "AC", 2, 12, &zero, false, false, {}};
  const std::string sam = render(OutputFormat::sam, false, {rec});
  CHECK(sam.substr(sam.rfind("q1\t")) == "q1\t4\t*\t0\t0\t*\t*\t0\t0\tAC\t*\tAS:i:0\n");
}

TEST_CASE("SAM flags: reverse strand, secondary hits, unmapped queries; qualities",
          "[align][strand]") {
  const AlignResult r = traced_local();
  // Read ACGTACGTACG, qualities 0-9 and A: its reverse complement was aligned.
  const AlignmentRecord reverse{3,  0,  "q1", "t1",  "ACGTACGTACc", 11,
                                12, &r, true, false, "0123456789A"};
  const AlignmentRecord secondary{3,  0,  "q1",  "t1", "ACGTACGTACc", 11,
                                  12, &r, false, true, "0123456789A"};
  const AlignmentRecord unmapped{4, 0, "q2", "", "ACG", 3, 0, nullptr, false, false, "III"};
  const std::string sam = render(OutputFormat::sam, false, {reverse, secondary, unmapped});
  const std::string body = sam.substr(sam.find("\nq1\t") + 1);
  CHECK(body ==
        "q1\t16\tt1\t1\t255\t2S3=1X1I1=1D2S\t*\t0\t0\tgGTACGTACGT\tA9876543210\tAS:i:17\tNM:i:3\n"
        "q1\t256\tt1\t1\t255\t2S3=1X1I1=1D2S\t*\t0\t0\tACGTACGTACc\t0123456789A\tAS:i:17\tNM:i:3\n"
        "q2\t4\t*\t0\t0\t*\t*\t0\t0\tACG\tIII\n");
  // tsv: a strand column when asked; blast6: BLAST's minus-strand coordinates
  // (query on the read as given, subject from end to start).
  CHECK(render(OutputFormat::blast6, false, {reverse}) ==
        "q1\tt1\t57.143\t7\t1\t2\t3\t9\t6\t1\tNA\t17\n");
}
