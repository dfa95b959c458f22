// --db-part i/N: a search over one of N contiguous parts of the TARGET
// file, so a cluster can split a database search into jobs whose outputs
// `seqfuse align-merge` joins into the bytes of one whole-database run.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "align/top_hits.hpp"

namespace seqfuse::align {

// Part `index` (1-based) of `count`.
struct DbPart {
  std::uint32_t index = 1;
  std::uint32_t count = 1;
};

// "i/N" with 1 <= i <= N; throws UsageError naming --db-part otherwise.
[[nodiscard]] DbPart parse_db_part(std::string_view text);

// The records of part `part` of a set whose record k holds residues
// [offsets[k], offsets[k + 1]) (offsets: size() + 1 entries).
//
// The rule (docs/align.md, --help): each record weighs its length + 1, so
// empty records count too; the weights are laid end to end and cut into N
// equal lengths, and a record belongs to the part that holds the middle of
// its span. Parts are thus contiguous, in file order, balanced to within
// one record, and depend on nothing but the lengths. A part may be empty
// (N above the record count, or a record longer than a part).
[[nodiscard]] TargetRange db_part_range(std::span<const std::uint64_t> offsets, DbPart part);

}  // namespace seqfuse::align
