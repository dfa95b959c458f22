// The raw output format (--format raw): the BWT of text$ as ASCII, the full
// suffix array as little-endian uint64, and a small JSON with the primary
// row. For tools that want the plain structures rather than bwa's layout.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>

namespace seqfuse::bwt {

// PREFIX.bwt.txt: one character a row, A, C, G, T for codes 0..3 and '$'
// for kSentinelCode (SortedSuffixes::bwt); no newline.
void write_raw_bwt_text(std::span<const std::uint8_t> bwt, std::ostream& out);

// PREFIX.sa (raw): every entry as 8 little-endian bytes, sa[0] = n included.
void write_raw_sa(std::span<const std::uint64_t> sa, std::ostream& out);

// PREFIX.raw.json: {"format", "primary", "length" (= n + 1, characters in
// the BWT text and entries in the SA), "sentinel", "alphabet", "sa_bytes"}.
void write_raw_json(std::uint64_t primary, std::uint64_t length, std::ostream& out);

}  // namespace seqfuse::bwt
