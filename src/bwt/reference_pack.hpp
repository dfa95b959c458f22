// A FASTA reference packed as `bwa index` 0.7.17 packs it: the forward text
// as 2-bit codes with ambiguous letters replaced by bwa's pseudo-random bases,
// the records and ambiguous runs that .ann and .amb list, and writers for
// .pac, .ann and .amb that give bwa's bytes. The suffix array and .bwt/.sa
// are built elsewhere from both_strands().
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "bwt/sorted_suffixes.hpp"  // RowVector

namespace seqfuse::bwt {

// One FASTA record as bwa's .ann describes it.
struct ReferenceRecord {
  std::string name;          // header up to the first space or tab
  std::string comment;       // rest of the header; empty is written "(null)"
  std::uint64_t offset = 0;  // of its first base in the forward text
  std::uint64_t length = 0;
  std::uint32_t ambiguous_runs = 0;  // its entries in `holes`
};

// A run of one ambiguous letter as bwa's .amb lists it. Runs never cross a
// record boundary, and 'N' and 'n' are different letters (bwa compares bytes).
struct AmbiguousRun {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  char letter = 'N';  // as it stands in the FASTA, case kept
};

struct PackedReference {
  std::vector<ReferenceRecord> records;
  std::vector<AmbiguousRun> holes;
  // The forward text, one 2-bit code per byte (A0 C1 G2 T3), ambiguous
  // letters replaced exactly as bwa 0.7.17 replaces them.
  RowVector<std::uint8_t> bases;  // not zeroed first: the coding pass writes every byte
  std::uint32_t seed = 11;  // as bwa writes in .ann
};

// Reads a FASTA (plain, gzip, or "-" for stdin) with seqfuse's reader and
// packs it. Throws seqfuse::Error naming the file for input bwa would index
// into something useless: a record with no bases, a text of ambiguous
// letters alone, and letters that are not IUPAC nucleotide codes (or '-').
// A file with no records is packed as nothing (bases empty): bwa index
// takes it too, and its index of nothing is what run_bwt writes.
// A plain FASTA file is parsed and coded on `threads` threads; gzip and
// stdin are read in one stream.
[[nodiscard]] PackedReference pack_reference(const std::string& fasta_path, unsigned threads = 1);

// Forward text then its reverse complement (3 - code, reversed): the text
// bwa builds its BWT of.
[[nodiscard]] RowVector<std::uint8_t> both_strands(const PackedReference& ref,
                                                   unsigned threads = 1);

// bwa's forward-only .pac: 4 bases per byte, the first in the high bits, then
// one byte holding length % 4 (preceded by a zero byte when length % 4 == 0).
// bwa's .pac: the forward text four codes a byte, the first in the two high
// bits, then bwa's closing bytes (n / 4 + 2 bytes in all).
[[nodiscard]] RowVector<char> pac_bytes(const PackedReference& ref, unsigned threads = 1);
void write_pac(const PackedReference& ref, std::ostream& out, unsigned threads = 1);
// Byte-identical to bwa's .ann.
void write_ann(const PackedReference& ref, std::ostream& out);
// Byte-identical to bwa's .amb.
void write_amb(const PackedReference& ref, std::ostream& out);

}  // namespace seqfuse::bwt
