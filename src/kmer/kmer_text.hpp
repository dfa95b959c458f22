// K-mers as text: the "KMER COUNT" lines of `jellyfish dump -c` and the
// letters of a query.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kmer/record_block.hpp"

namespace seqfuse::kmer {

// Writes the k letters of a packed k-mer (words_for_k(k) words, w[0] first).
void format_kmer(const std::uint64_t* words, int k, char* out) noexcept;

// Appends one "KMER COUNT\n" line per record (the `jellyfish dump -c` form).
void append_dump_lines(const RecordBlock& block, std::string& out);

// Packs `letters` (A/C/G/T in either case) into words_for_k(k) words. False
// when the length is not k or a letter is not a base.
[[nodiscard]] bool parse_kmer(std::string_view letters, int k, std::uint64_t* words) noexcept;

// The reverse complement of a packed k-mer, in place.
void reverse_complement(std::uint64_t* words, int k) noexcept;

// The smaller of a packed k-mer and its reverse complement, in place.
void canonicalize(std::uint64_t* words, int k) noexcept;

}  // namespace seqfuse::kmer
