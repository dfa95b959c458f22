#include "align/merge_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "core/error.hpp"
#include "io/compressed_input.hpp"

namespace seqfuse::align {
namespace {

constexpr std::string_view kTsvHeader = "query\ttarget\tquery_len\ttarget_len\tscore";

// Up to 16 fields split on `sep`; returns 17 when the line has more (the
// rest is not split).
std::size_t split(std::string_view line, char sep, std::array<std::string_view, 16>& fields) {
  std::size_t n = 0;
  while (n < fields.size()) {
    const std::size_t at = line.find(sep);
    fields[n++] = line.substr(0, at);
    if (at == std::string_view::npos) return n;
    line.remove_prefix(at + 1);
  }
  return n + 1;  // more than fields.size()
}

bool parse_int(std::string_view text, std::int32_t& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc{} && stop == end;
}

// The query key and score of one hit line; false when the line is not one.
// `columns`: tsv's column count, fixed by its header (7, or 13 with traceback).
bool parse_hit(OutputFormat format, std::string_view line, std::size_t columns, ShardHit& hit) {
  std::array<std::string_view, 16> f;
  const std::size_t n = split(line, format == OutputFormat::csv ? ',' : '\t', f);
  std::int32_t number = 0;
  switch (format) {
    case OutputFormat::tsv:
      hit.query = f[0];
      hit.query_more = f[2];
      return n == columns && parse_int(f[2], number) && parse_int(f[3], number) &&
             parse_int(f[4], hit.score);
    case OutputFormat::csv:
      hit.query = f[0];
      return n == 7 && parse_int(f[0], number) && parse_int(f[1], hit.target) &&
             parse_int(f[4], hit.score);
    case OutputFormat::blast6:
      hit.query = f[0];
      return n == 12 && f[10] == "NA" && parse_int(f[11], hit.score);
    case OutputFormat::sam:
      if (n < 12 || n > f.size()) return false;
      hit.query = f[0];
      hit.query_more = f[9];
      for (std::size_t k = 11; k < n; ++k)
        if (f[k].substr(0, 5) == "AS:i:") return parse_int(f[k].substr(5), hit.score);
      return false;
  }
  return false;
}

std::string where(const std::string& path, std::size_t line) {
  return ", " + (path == "-" ? std::string("stdin") : path) + ":" + std::to_string(line);
}

}  // namespace

std::shared_ptr<const std::string> read_text(const std::string& path) {
  io::CompressedInput input(path);
  auto shared = std::make_shared<std::string>();
  std::string& text = *shared;
  std::size_t size = 0;
  for (;;) {
    text.resize(size + (std::size_t{1} << 20));
    const std::size_t got = input.read(text.data() + size, text.size() - size);
    size += got;
    if (got == 0) break;
  }
  text.resize(size);
  return shared;
}

std::optional<OutputFormat> detect_format(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  if (first.substr(0, kTsvHeader.size()) == kTsvHeader) return OutputFormat::tsv;
  if (!first.empty() && first[0] == '@') return OutputFormat::sam;
  ShardHit hit;
  if (parse_hit(OutputFormat::csv, first, 0, hit)) return OutputFormat::csv;
  if (parse_hit(OutputFormat::blast6, first, 0, hit)) return OutputFormat::blast6;
  return std::nullopt;
}

std::string without_db_part(std::string_view line) {
  std::string out(line);
  const std::size_t cl = out.find("\tCL:");
  if (cl == std::string::npos) return out;
  for (const std::string_view option : {" --db-part=", " --db-part "}) {
    const std::size_t at = out.find(option, cl);
    if (at == std::string::npos) continue;
    std::size_t end = at + option.size();
    while (end < out.size() && out[end] != ' ' && out[end] != '\t' && out[end] != '\n') ++end;
    out.erase(at, end - at);
  }
  return out;
}

ShardText parse_shard(std::string path, std::shared_ptr<const std::string> text_owner,
                      OutputFormat format) {
  ShardText shard;
  shard.path = std::move(path);
  shard.text = std::move(text_owner);
  shard.format = format;
  const std::string_view text(*shard.text);
  const std::string& path_ref = shard.path;
  const std::string name = path_ref == "-" ? std::string("stdin") : path_ref;
  if (!text.empty() && text.back() != '\n')
    throw Error(
        "the last line has no newline (a truncated file?)" +
        where(path_ref, static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n') + 1)));
  if (text.empty() && (format == OutputFormat::tsv || format == OutputFormat::sam))
    throw Error("'" + name + "' is empty: " + output_format_name(format) +
                " output has a header even without hits");

  std::size_t columns = 0;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at) + 1;
    const std::string_view line = text.substr(at, end - at);
    const std::string_view body = line.substr(0, line.size() - 1);
    at = end;
    ++number;
    const bool header_line = shard.format == OutputFormat::sam
                                 ? body.substr(0, 1) == "@" && shard.hits.empty()
                                 : shard.format == OutputFormat::tsv && number == 1;
    if (header_line) {
      if (shard.format == OutputFormat::tsv) {
        if (body.substr(0, kTsvHeader.size()) != kTsvHeader)
          throw Error("the first line is not align's tsv header" + where(path_ref, number));
        columns = static_cast<std::size_t>(std::count(body.begin(), body.end(), '\t')) + 1;
      }
      shard.header.push_back(line);
      continue;
    }
    ShardHit hit;
    hit.line = line;
    hit.line_number = number;
    if (!parse_hit(shard.format, body, columns, hit))
      throw Error(std::string("not a ") + output_format_name(shard.format) + " alignment line" +
                  where(path_ref, number));
    shard.hits.push_back(hit);
  }
  return shard;
}

}  // namespace seqfuse::align
