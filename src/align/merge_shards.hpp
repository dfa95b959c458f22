// seqfuse align-merge: the per-part outputs of a search split with
// --db-part (or run over prebuilt database shards) joined into the bytes
// one run over the whole database writes. Parts are given in database
// order; each holds, per query in query order, its best hits by decreasing
// score with ties in target order. Merging them per query by score, ties to
// the earlier part (its targets come first), keeps that order, and the
// top N of the union of each part's top N is the whole database's top N.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "align/merge_text.hpp"
#include "core/report.hpp"

namespace seqfuse::align {

struct MergeOptions {
  std::vector<std::string> parts;  // in database order
  int top = 10;                    // as align's --top; 0 keeps all
  std::string format = "auto";     // auto: from the parts' content
  std::string output = "-";
};

// Throws UsageError naming every problem with the values at once.
void validate(const MergeOptions& options);

// Merges parsed parts, all of one format, writing the merged text to
// `write` in pieces. Throws Error naming the part and line where the
// parts disagree (other query sets, headers of another run, hits out of
// order). Returns the alignments written; `queries` gets the query count.
std::size_t merge_parts(const std::vector<ShardText>& parts, std::size_t top,
                        const std::function<void(std::string_view)>& write, std::size_t& queries);

// The whole run: reads the parts, merges, writes options.output (BGZF for a
// .gz name, whole or not at all) and fills the report's facts.
void run_align_merge(const MergeOptions& options, Reporter& report);

}  // namespace seqfuse::align
