// --strand plus|minus|both for DNA: which strands of each query are aligned.
// The reverse strand is the reverse complement of the query, aligned as any
// other query (the engines, CPU and GPU, see just more queries); `both`
// aligns the two interleaved (query k's plus strand as query 2k, its minus
// strand as 2k + 1) in one engine run and keeps per target the better strand
// (a tie: plus), so a query's hits are those of the two searches merged.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "align/engine.hpp"

namespace seqfuse::align {

enum class Strand { plus, minus, both };

// Throws UsageError for anything but plus, minus or both.
[[nodiscard]] Strand parse_strand(std::string_view name);

// The complement of each code of `scheme` (A<->T, C<->G, U->A, R<->Y, K<->M,
// B<->V, D<->H; S, W and N their own), or empty when some letter of the
// scheme has no complement in it (a protein matrix).
[[nodiscard]] std::vector<std::uint8_t> complement_codes(const ScoringScheme& scheme);

// The reverse complement of sequence text as read, case kept (SAM's SEQ of a
// reverse-strand hit); a character without a complement is kept as it is.
void append_reverse_complement(std::string_view sequence, std::string& out);

// Runs `job` on the strands asked for: plus is run_alignment_batched itself.
// minus and both hand `emit` hits with `reverse` set on minus-strand hits,
// in the order of a search: queries in input order, within a query
// decreasing score, ties by target. All against all with minus or both
// searches every record against all the others on those strands (the
// record itself left out on both strands). Throws UsageError when the
// scheme has no complement (not DNA).
AlignStats run_stranded(const AlignJob& job, Strand strand, const ScoringScheme& scheme,
                        const EncodedSequences& queries, const EncodedSequences& targets,
                        const EmitHits& emit);

}  // namespace seqfuse::align
