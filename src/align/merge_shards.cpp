#include "align/merge_shards.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "align/top_hits.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"

namespace seqfuse::align {
namespace {

std::string display(const std::string& path) {
  return path == "-" ? "stdin" : path;
}

// 'path', built by appending: GCC 12 warns (-Wrestrict, a false positive)
// on "'" + std::string temporaries.
std::string quoted(const std::string& path) {
  std::string text = "'";
  text += display(path);
  text += '\'';
  return text;
}

std::string where(const ShardText& part, std::size_t line) {
  return ", " + display(part.path) + ":" + std::to_string(line);
}

// A SAM line as the merge ranks it: FLAG 256 (secondary) set on every hit
// of a query after its first and cleared on the first, whatever its part
// made of it; the rest of the line as written.
void append_sam_ranked(std::string& text, std::string_view line, bool secondary) {
  const std::size_t begin = line.find('\t') + 1, end = line.find('\t', begin);
  unsigned flag = 0;
  (void)std::from_chars(line.data() + begin, line.data() + end, flag);
  flag = secondary ? flag | 256u : flag & ~256u;
  text.append(line.substr(0, begin));
  text += std::to_string(flag);
  text.append(line.substr(end));
}

bool same_query(const ShardHit& a, const ShardHit& b) {
  return a.query == b.query && a.query_more == b.query_more;
}

// The hits of one part, query by query: query q holds hits
// [first + q * per_query, first + (q + 1) * per_query).
struct PartQueries {
  std::size_t per_query = 0;
  std::size_t count = 0;
};

// A search gives every query of a part the same number of hits, min(top,
// targets of the part). Adjacent queries may share a name, so the count is
// the shortest run of hits with one query, and every run must be a
// multiple of it.
PartQueries split_queries(const ShardText& part) {
  const std::vector<ShardHit>& hits = part.hits;
  if (hits.empty()) return {};
  std::vector<std::size_t> runs;
  for (std::size_t k = 0, begin = 0; k < hits.size(); ++k)
    if (k + 1 == hits.size() || !same_query(hits[k], hits[k + 1])) {
      runs.push_back(k + 1 - begin);
      begin = k + 1;
    }
  const std::size_t per_query = *std::min_element(runs.begin(), runs.end());
  for (std::size_t k = 0, begin = 0; k < runs.size(); begin += runs[k++])
    if (runs[k] % per_query != 0)
      throw Error("query '" + std::string(hits[begin].query) + "' has " + std::to_string(runs[k]) +
                  " hits where the others have " + std::to_string(per_query) +
                  " (not the output of one search?)" + where(part, hits[begin].line_number));
  return {per_query, hits.size() / per_query};
}

// Every part with hits holds the queries of the first one, in its order.
void check_same_queries(const std::vector<ShardText>& parts,
                        const std::vector<PartQueries>& split) {
  std::optional<std::size_t> first;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (split[p].count == 0) continue;
    if (!first) {
      first = p;
      continue;
    }
    const ShardText& a = parts[*first];
    const ShardText& b = parts[p];
    const std::string one_search = ": the parts of one search over one QUERY file are merged";
    if (split[p].count != split[*first].count)
      throw Error(quoted(b.path) + " has " + std::to_string(split[p].count) + " queries where " +
                  quoted(a.path) + " has " + std::to_string(split[*first].count) + one_search +
                  where(b, b.hits.back().line_number));
    const std::string differ =
        quoted(b.path) + " holds other queries than " + quoted(a.path) + one_search;
    for (std::size_t q = 0; q < split[p].count; ++q) {
      const ShardHit& x = a.hits[q * split[*first].per_query];
      const ShardHit& y = b.hits[q * split[p].per_query];
      if (!same_query(x, y)) throw Error(differ + where(b, y.line_number));
    }
  }
}

// csv numbers targets in the whole database: each part's must follow the
// previous part's, which catches parts given out of database order.
void check_csv_order(const std::vector<ShardText>& parts) {
  std::int32_t last = -1;
  const ShardText* last_part = nullptr;
  for (const ShardText& part : parts) {
    if (part.hits.empty()) continue;
    const auto [low, high] = std::minmax_element(
        part.hits.begin(), part.hits.end(),
        [](const ShardHit& a, const ShardHit& b) { return a.target < b.target; });
    if (low->target <= last)
      throw Error("target " + std::to_string(low->target) + " comes before target " +
                  std::to_string(last) + " of " + quoted(last_part->path) +
                  ": give the parts in database order (csv of separate shard files numbers "
                  "each from 0: split with --db-part, or merge another format)" +
                  where(part, low->line_number));
    last = high->target;
    last_part = &part;
  }
}

// SAM: @HD of the first part, the @SQ lines of every part in order (the
// targets of the whole database), then the first part's other lines, its
// @PG without --db-part. tsv: the first part's header line, which every
// part must share (the same columns). csv and blast6 have none.
std::string merged_header(const std::vector<ShardText>& parts) {
  const ShardText& first = parts.front();
  std::string header;
  if (first.format == OutputFormat::tsv) {
    for (const ShardText& part : parts)
      if (part.header.front() != first.header.front())
        throw Error("the header differs from '" + display(first.path) +
                    "''s (a run with other columns)" + where(part, 1));
    header = first.header.front();
  }
  if (first.format != OutputFormat::sam) return header;
  const auto is = [](std::string_view line, std::string_view tag) {
    return line.substr(0, tag.size()) == tag;
  };
  for (std::string_view line : first.header)
    if (is(line, "@HD")) header += line;
  for (const ShardText& part : parts)
    for (std::string_view line : part.header)
      if (is(line, "@SQ")) header += line;
  for (std::string_view line : first.header)
    if (!is(line, "@HD") && !is(line, "@SQ"))
      header += is(line, "@PG") ? without_db_part(line) : std::string(line);
  return header;
}

// The best `top` hits of query q over every part, in the order of a
// whole-database run (better_hit: decreasing score, ties in target order).
// Each part's hits of a query are already in that order; numbering them
// across the parts in part order turns "ties in target order" into "ties
// in number order", which is what top_hits' merge keeps.
void merge_query(const std::vector<ShardText>& parts, const std::vector<PartQueries>& split,
                 std::size_t q, std::size_t top, std::vector<const ShardHit*>& numbered,
                 std::vector<ScoredTarget>& kept) {
  std::vector<ScoredTarget> more;
  numbered.clear();
  kept.clear();
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::size_t n = split[p].per_query;
    more.clear();
    for (std::size_t k = q * n; k < (q + 1) * n; ++k) {
      const ShardHit& hit = parts[p].hits[k];
      if (!more.empty() && hit.score > more.back().score.score)
        throw Error("hits of query '" + std::string(hit.query) +
                    "' are not in decreasing score order (not align's output?)" +
                    where(parts[p], hit.line_number));
      more.push_back({static_cast<std::uint32_t>(numbered.size()), {hit.score, -1, -1}});
      numbered.push_back(&hit);
    }
    merge_top(kept, more, top);
  }
}

OutputFormat common_format(const std::vector<std::shared_ptr<const std::string>>& texts,
                           const MergeOptions& options) {
  if (options.format != "auto") return parse_output_format(options.format);
  std::optional<OutputFormat> found;
  std::size_t found_in = 0;
  for (std::size_t p = 0; p < texts.size(); ++p) {
    if (texts[p]->empty()) continue;  // csv or blast6 without hits: fits either
    const std::optional<OutputFormat> format = detect_format(*texts[p]);
    if (!format)
      throw Error("not an alignment output of align-sw/align-nw (tsv, csv, sam or blast6), " +
                  display(options.parts[p]) + ":1");
    if (found && *format != *found)
      throw Error(std::string("a ") + output_format_name(*format) + " output where '" +
                  display(options.parts[found_in]) + "' is " + output_format_name(*found) +
                  ": the parts of one search have one format, " + display(options.parts[p]) + ":1");
    if (!found) found_in = p;
    if (!found) found = format;
  }
  return found.value_or(OutputFormat::csv);  // every part empty: no header, no hits
}

}  // namespace

void validate(const MergeOptions& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (c.parts.empty()) add("at least one PART is needed");
  if (c.top < 0) add("--top must be 0 or more");
  if (c.format != "auto") {
    try {
      (void)parse_output_format(c.format);
    } catch (const UsageError&) {
      add("--format must be auto, tsv, csv, sam or blast6, not '" + c.format + "'");
    }
  }
  if (std::count(c.parts.begin(), c.parts.end(), std::string("-")) > 1)
    add("only one PART can be '-': standard input can be read only once");
  if (!problems.empty()) throw UsageError(problems);
}

std::size_t merge_parts(const std::vector<ShardText>& parts, std::size_t top,
                        const std::function<void(std::string_view)>& write, std::size_t& queries) {
  std::vector<PartQueries> split;
  for (const ShardText& part : parts) split.push_back(split_queries(part));
  check_same_queries(parts, split);
  if (parts.front().format == OutputFormat::csv) check_csv_order(parts);
  if (parts.front().format == OutputFormat::sam) {
    // A part with targets (@SQ lines) and no hits beside one with hits was
    // searched with another QUERY file.
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const bool targets = std::any_of(parts[p].header.begin(), parts[p].header.end(),
                                       [](std::string_view l) { return l.substr(0, 3) == "@SQ"; });
      const bool others = std::any_of(split.begin(), split.end(),
                                      [](const PartQueries& s) { return s.count != 0; });
      if (targets && split[p].count == 0 && others)
        throw Error(
            "targets but no hits beside parts with hits: the parts of one search over "
            "one QUERY file are merged" +
            where(parts[p], parts[p].header.size()));
    }
  }
  write(merged_header(parts));

  queries = 0;
  for (const PartQueries& s : split) queries = std::max(queries, s.count);
  std::vector<const ShardHit*> numbered;
  std::vector<ScoredTarget> kept;
  std::string text;
  std::size_t alignments = 0;
  for (std::size_t q = 0; q < queries; ++q) {
    merge_query(parts, split, q, top, numbered, kept);
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const std::string_view line = numbered[kept[k].target]->line;
      if (parts.front().format == OutputFormat::sam)
        append_sam_ranked(text, line, k > 0);
      else
        text += line;
    }
    alignments += kept.size();
    if (text.size() >= (std::size_t{1} << 20)) {
      write(text);
      text.clear();
    }
  }
  write(text);
  return alignments;
}

void run_align_merge(const MergeOptions& options, Reporter& report) {
  const RunScope run;  // the parts are inputs -o may not overwrite
  Stopwatch clock;
  for (const std::string& path : options.parts) register_input(path);
  OutputFile out(options.output, OutputKind::text);  // an unwritable path fails first
  std::vector<std::shared_ptr<const std::string>> texts;
  for (const std::string& path : options.parts) texts.push_back(read_text(path));
  const OutputFormat format = common_format(texts, options);
  std::vector<ShardText> parts;
  for (std::size_t p = 0; p < texts.size(); ++p)
    parts.push_back(parse_shard(options.parts[p], std::move(texts[p]), format));
  RunFacts& facts = report.facts();
  for (const std::string& path : options.parts) facts.input(path);
  facts.output(options.output);
  facts.phase("read");

  // Parts without hits (empty parts of a split database) contribute
  // nothing but their SAM @SQ lines.
  std::size_t queries = 0;
  const std::size_t alignments = merge_parts(
      parts, static_cast<std::size_t>(options.top), [&](std::string_view text) { out.write(text); },
      queries);
  out.commit();
  facts.phase("merge");
  facts.count("parts", parts.size());
  facts.count("queries", queries);
  facts.count("alignments", alignments);
  const double seconds = clock.seconds();
  report.summary(std::to_string(alignments) + " alignments of " + std::to_string(queries) +
                     " queries from " + std::to_string(parts.size()) + " parts",
                 seconds);
  facts.device(DeviceChoice{}, 1);  // one host thread (BGZF output aside)
  facts.throughput(static_cast<double>(alignments), seconds, "alignments/s");
}

}  // namespace seqfuse::align
