// Splitting a search's database with --db-part and joining the parts'
// outputs with align-merge (db_part.hpp, merge_shards.hpp): the parts cover
// the targets in order, balanced by residues, and the merged text equals
// the whole-database text byte for byte, in every format, for any part
// count and --top (ties cut by --top included).
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "align/db_part.hpp"
#include "align/merge_shards.hpp"
#include "core/error.hpp"
#include "test_data.hpp"

using namespace seqfuse::align;
using seqfuse::test::test_seed;

namespace {

// prefix + n, appended: GCC 12 warns (-Wrestrict, a false positive) on
// "literal" + std::to_string(n).
std::string label(const char* prefix, std::size_t n) {
  std::string text = prefix;
  text += std::to_string(n);
  return text;
}

std::vector<std::uint64_t> offsets_of(const std::vector<std::uint64_t>& lengths) {
  std::vector<std::uint64_t> offsets{0};
  for (std::uint64_t l : lengths) offsets.push_back(offsets.back() + l);
  return offsets;
}

// A search's scores: score[q][t]; and what align writes for targets
// [begin, end), in `format`, keeping `top` per query (hits by decreasing
// score, ties in target order, as the align job orders them).
struct Search {
  std::vector<std::string> query_names;
  std::vector<std::vector<int>> score;

  std::string output(OutputFormat format, std::size_t begin, std::size_t end,
                     std::size_t top) const {
    std::string text;
    if (format == OutputFormat::tsv)
      text = "query\ttarget\tquery_len\ttarget_len\tscore\tquery_end\ttarget_end\n";
    if (format == OutputFormat::sam) {
      text = "@HD\tVN:1.6\tSO:unsorted\n";
      for (std::size_t t = begin; t < end; ++t)
        text += "@SQ\tSN:" + label("t", t) + "\tLN:" + std::to_string(10 + t) + "\n";
      text += "@PG\tID:seqfuse\tPN:seqfuse\tVN:0\tCL:seqfuse align-sw q.fa db.fa --format sam" +
              std::string(end - begin == score[0].size() ? "" : " --db-part=x/y") + "\n";
    }
    for (std::size_t q = 0; q < score.size(); ++q) {
      std::vector<std::size_t> order(end - begin);
      std::iota(order.begin(), order.end(), begin);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return score[q][a] > score[q][b]; });
      if (top != 0 && order.size() > top) order.resize(top);
      for (std::size_t t : order) {
        const std::string flag = t == order.front() ? "0" : "256";  // SAM: secondary after the first
        const std::string qn = query_names[q], tn = label("t", t), s = std::to_string(score[q][t]);
        switch (format) {
          case OutputFormat::tsv:
            text += qn + "\t" + tn + "\t5\t" + std::to_string(10 + t) + "\t" + s + "\t4\t3\n";
            break;
          case OutputFormat::csv:
            text += std::to_string(q) + "," + std::to_string(t) + ",5,9," + s + ",4,3\n";
            break;
          case OutputFormat::blast6:
            text += qn + "\t" + tn + "\t100.000\t5\t0\t0\t1\t5\t1\t5\tNA\t" + s + "\n";
            break;
          case OutputFormat::sam:
            text += qn + "\t" + flag + "\t" + tn + "\t1\t255\t5=\t*\t0\t0\tACGTA\t*\tAS:i:" + s + "\tNM:i:0\n";
            break;
        }
      }
    }
    return text;
  }
};

ShardText shard(const std::string& name, std::string text, OutputFormat format) {
  return parse_shard(name, std::make_shared<const std::string>(std::move(text)), format);
}

std::string merged(const std::vector<ShardText>& parts, std::size_t top) {
  std::string text;
  std::size_t queries = 0;
  (void)merge_parts(
      parts, top, [&](std::string_view piece) { text += piece; }, queries);
  return text;
}

}  // namespace

TEST_CASE("--db-part values are i/N with 1 <= i <= N", "[align][merge]") {
  CHECK(parse_db_part("1/1").index == 1);
  CHECK(parse_db_part("3/8").count == 8);
  for (const char* bad : {"", "0/3", "4/3", "1", "/3", "1/", "a/b", "1/3x", "-1/3", "1/0"})
    CHECK_THROWS_AS(parse_db_part(bad), seqfuse::UsageError);
}

TEST_CASE("--db-part parts cover the targets in order, balanced by residues", "[align][merge]") {
  std::mt19937_64 random(test_seed());
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t records = std::uniform_int_distribution<std::size_t>(0, 40)(random);
    std::vector<std::uint64_t> lengths(records);
    for (auto& l : lengths)
      l = std::uniform_int_distribution<std::uint64_t>(0, trial % 4 == 0 ? 3 : 5000)(random);
    const auto offsets = offsets_of(lengths);
    const std::uint64_t total = offsets.back() + records;
    const std::uint64_t heaviest =
        records == 0 ? 0 : *std::max_element(lengths.begin(), lengths.end()) + 1;
    const auto parts = static_cast<std::uint32_t>(1 + trial % (records + 4));
    std::uint32_t next = 0;
    for (std::uint32_t i = 1; i <= parts; ++i) {
      const TargetRange range = db_part_range(offsets, {i, parts});
      CHECK(range.begin == next);  // contiguous, in order, nothing left out
      next = range.end;
      const std::uint64_t weight =
          offsets[range.end] - offsets[range.begin] + (range.end - range.begin);
      CHECK(weight <= total / parts + heaviest + 1);  // within one record of an equal share
    }
    CHECK(next == records);
  }
  // The rule, on an example: weights 4, 2, 2, 4 (lengths + 1) over 12,
  // cut at 6: middles 2, 5, 7, 10.
  const auto offsets = offsets_of({3, 1, 1, 3});
  CHECK(db_part_range(offsets, {1, 2}).end == 2);
  CHECK(db_part_range(offsets, {2, 2}).begin == 2);
  // In 5 parts (cuts at 2.4, 4.8, 7.2, 9.6): records 1 and 2 both in part 3,
  // part 2 empty.
  CHECK(db_part_range(offsets, {3, 5}).size() == 2);
  CHECK(db_part_range(offsets, {2, 5}).size() == 0);
  // More parts than records: some parts are empty.
  CHECK(db_part_range(offsets_of({5}), {1, 3}).size() == 0);
  CHECK(db_part_range(offsets_of({5}), {2, 3}).size() == 1);
}

TEST_CASE("merged parts equal the whole search, every format, ties cut by --top",
          "[align][merge]") {
  std::mt19937_64 random(test_seed());
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t queries = std::uniform_int_distribution<std::size_t>(1, 6)(random);
    const std::size_t targets = std::uniform_int_distribution<std::size_t>(1, 25)(random);
    Search search;
    // Adjacent queries sharing a name (q1 twice) are told apart by count.
    for (std::size_t q = 0; q < queries; ++q)
      search.query_names.push_back(label("q", q == 2 ? 1 : q));
    std::uniform_int_distribution<int> score(-2, trial % 2 ? 2 : 500);  // many ties or few
    search.score.assign(queries, std::vector<int>(targets));
    for (auto& row : search.score)
      for (int& s : row) s = score(random);
    std::vector<std::uint64_t> lengths(targets);
    for (auto& l : lengths) l = std::uniform_int_distribution<std::uint64_t>(1, 300)(random);
    const auto offsets = offsets_of(lengths);
    const std::size_t top = std::vector<std::size_t>{0, 1, 2, 3, 10}[trial % 5];
    const auto count = static_cast<std::uint32_t>(1 + trial % (targets + 3));
    for (const OutputFormat format :
         {OutputFormat::tsv, OutputFormat::csv, OutputFormat::blast6, OutputFormat::sam}) {
      std::vector<ShardText> parts;
      for (std::uint32_t i = 1; i <= count; ++i) {
        const TargetRange range = db_part_range(offsets, {i, count});
        parts.push_back(
            shard(label("p", i), search.output(format, range.begin, range.end, top), format));
      }
      INFO("trial " << trial << " format " << output_format_name(format) << " parts " << count);
      CHECK(merged(parts, top) == search.output(format, 0, targets, top));
    }
  }
}

TEST_CASE("align-merge refuses parts that are not of one search", "[align][merge]") {
  Search a{{"q0", "q1"}, {{5, 3, 1}, {2, 2, 9}}};
  Search b{{"q0", "qX"}, {{5, 3, 1}, {2, 2, 9}}};
  const auto tsv = OutputFormat::tsv;
  // Other queries.
  CHECK_THROWS_WITH(
      merged({shard("a", a.output(tsv, 0, 2, 0), tsv), shard("b", b.output(tsv, 2, 3, 0), tsv)}, 0),
      Catch::Contains("other queries") && Catch::Contains("b:3"));
  // Another header.
  std::string other = a.output(tsv, 2, 3, 0);
  other.replace(other.find("target_end"), 10, "target_END");
  CHECK_THROWS_WITH(merged({shard("a", a.output(tsv, 0, 2, 0), tsv), shard("b", other, tsv)}, 0),
                    Catch::Contains("header differs") && Catch::Contains("b:1"));
  // A malformed line, a truncated file, an empty tsv, hits out of order.
  CHECK_THROWS_WITH(shard("m",
                          "query\ttarget\tquery_len\ttarget_len\tscore\tquery_end\ttarget_end\n"
                          "q\tt\t5\t6\tseven\t1\t1\n",
                          tsv),
                    Catch::Contains("not a tsv alignment line, m:2"));
  std::string cut = a.output(tsv, 0, 3, 0);
  cut.pop_back();
  CHECK_THROWS_WITH(shard("t", cut, tsv), Catch::Contains("no newline") && Catch::Contains("t:7"));
  CHECK_THROWS_WITH(shard("e", "", tsv), Catch::Contains("'e' is empty"));
  CHECK_THROWS_WITH(merged({shard("o", "0,1,5,9,3,4,3\n0,2,5,9,7,4,3\n", OutputFormat::csv)}, 0),
                    Catch::Contains("decreasing score") && Catch::Contains("o:2"));
  // csv parts out of database order.
  CHECK_THROWS_WITH(merged({shard("c2", "0,2,5,9,7,4,3\n", OutputFormat::csv),
                            shard("c1", "0,1,5,9,7,4,3\n", OutputFormat::csv)},
                           0),
                    Catch::Contains("give the parts in database order") && Catch::Contains("c1:1"));
  // Formats are told by their first line.
  CHECK(detect_format(a.output(OutputFormat::sam, 0, 1, 0)) == OutputFormat::sam);
  CHECK(detect_format(a.output(OutputFormat::csv, 0, 1, 0)) == OutputFormat::csv);
  CHECK(detect_format(a.output(OutputFormat::blast6, 0, 1, 0)) == OutputFormat::blast6);
  CHECK(detect_format(a.output(tsv, 0, 1, 0)) == tsv);
  CHECK_FALSE(detect_format(">seq\nACGT\n"));
  CHECK(without_db_part("@PG\tID:x\tCL:seqfuse align-sw q db --db-part 2/3 -q\n") ==
        "@PG\tID:x\tCL:seqfuse align-sw q db -q\n");
}
