// One part's alignment output as align-merge reads it: the header lines
// and, per hit line, the query it belongs to and its score. The lines are
// kept as written, so the merged output copies them byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "align/output_format.hpp"

namespace seqfuse::align {

struct ShardHit {
  std::string_view line;  // with its '\n'
  // What tells queries apart in this format (read_shard): two fields.
  std::string_view query, query_more;
  std::int32_t target = -1;  // csv: the target's index in the whole database
  std::int32_t score = 0;
  std::size_t line_number = 0;  // 1-based, for messages
};

struct ShardText {
  std::string path;
  // The whole (decompressed) file, on the heap: the views point into it,
  // and a ShardText may move.
  std::shared_ptr<const std::string> text;
  OutputFormat format = OutputFormat::tsv;
  std::vector<std::string_view> header;  // lines with their '\n'
  std::vector<ShardHit> hits;
};

// The whole file, decompressed when it is gzip or BGZF ("-": stdin).
[[nodiscard]] std::shared_ptr<const std::string> read_text(const std::string& path);

// Parses a part written by align-sw/align-nw in `format` (an empty text is
// csv or blast6 output without hits). The query of a hit: the query index
// (csv), name and length (tsv), name (blast6), name and sequence (sam).
// Throws Error "<what>, FILE:LINE" for a line that is not an alignment of
// the format, and for a text that does not end with a newline (truncated).
[[nodiscard]] ShardText parse_shard(std::string path, std::shared_ptr<const std::string> text,
                                    OutputFormat format);

// The format a non-empty text starts as; nullopt when the first line is
// none of the four.
[[nodiscard]] std::optional<OutputFormat> detect_format(std::string_view text);

// A SAM @PG line with "--db-part X" (or "--db-part=X") taken out of its
// CL: field, so the merged header reads as the whole-database run's.
[[nodiscard]] std::string without_db_part(std::string_view pg_line);

}  // namespace seqfuse::align
