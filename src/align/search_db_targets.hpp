// TARGET given as a search database (.sfdb): what read_align_inputs takes
// from it instead of reading and encoding a FASTA file. The codes stay in
// the mapping; only names, lengths and (for --db-part) the part's offsets
// are copied, a few bytes a record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "align/align_options.hpp"
#include "align/search_db.hpp"
#include "io/batch.hpp"

namespace seqfuse::align {

struct DbTargets {
  std::unique_ptr<const SearchDb> db;
  // The records searched (the whole file, or --db-part's part): names and
  // lengths only; `bases` is empty (no output prints a target's letters).
  io::SequenceBatch names;
  std::size_t first = 0;                   // index in the database of names' record 0
  Codes codes;                             // the part's codes, in the mapping
  std::span<const std::uint64_t> offsets;  // from 0: the mapping's, or rebased below
  std::vector<std::uint64_t> rebased;      // --db-part: the part's offsets from 0
};

// Maps and checks config.target (search_db.hpp) on `threads` threads and
// keeps the records of config.db_part (all when empty), by the same rule as
// a FASTA TARGET. Throws Error naming the file.
[[nodiscard]] std::unique_ptr<DbTargets> open_db_targets(const AlignOptions& config,
                                                         unsigned threads);

}  // namespace seqfuse::align
