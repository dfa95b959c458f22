#include "align/align_options.hpp"

#include "align/db_part.hpp"
#include "align/output_format.hpp"
#include "align/strand.hpp"
#include "core/error.hpp"

namespace seqfuse::align {

void validate(const AlignOptions& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (c.pairs && c.target.empty()) add("--pairs needs a TARGET file");
  if (c.query == "-" && c.target == "-")
    add("QUERY and TARGET cannot both be '-': standard input can be read only once");
  if (c.top < 0) add("--top must be 0 or more");
  if (c.alphabet != "auto" && c.alphabet != "dna" && c.alphabet != "protein")
    add("--alphabet must be auto, dna or protein");
  if (!c.matrix.empty() && (c.match || c.mismatch))
    add("--matrix and --match/--mismatch exclude each other");
  if (c.alphabet == "protein" && (c.match || c.mismatch))
    add("--match/--mismatch score DNA, not protein");
  if (c.match && *c.match <= 0) add("--match must be a positive score");
  if (c.mismatch && *c.mismatch > 0) add("--mismatch is a score: 0 or negative, such as -3");
  if (c.gap_open && *c.gap_open < 0) add("--gap-open is a penalty: 0 or more");
  if (c.gap_extend && *c.gap_extend < 0) add("--gap-extend is a penalty: 0 or more");
  if (!c.db_part.empty()) {
    if (c.pairs)
      add("--db-part splits the TARGET database of a search: it does not go with --pairs");
    else if (c.target.empty())
      add("--db-part needs a TARGET file: it splits the database of a search");
    if (c.min_score)
      add("--min-score does not go with --db-part: align-merge needs each part's --top hits; "
          "filter the merged output instead");
    if (c.strand != "plus" && c.format == "sam")
      add("--db-part with --format sam takes --strand plus only: align-merge tells SAM queries "
          "apart by SEQ, which reverse-strand lines store reverse complemented");
    try {
      (void)parse_db_part(c.db_part);
    } catch (const UsageError& e) {
      add(e.what());
    }
  }
  try {
    (void)parse_strand(c.strand);
  } catch (const UsageError& e) {
    add(e.what());
  }
  if (c.strand != "plus" && c.alphabet == "protein")
    add("--strand " + c.strand + " aligns the reverse complement of DNA queries, not protein");
  try {
    (void)parse_output_format(c.format);
  } catch (const UsageError& e) {
    add(e.what());
  }
  if (!problems.empty()) throw UsageError(problems);
}

}  // namespace seqfuse::align
