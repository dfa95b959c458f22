// The plain reference for the counting engines: strings in a std::map, the
// reverse complement built letter by letter. Slow and obviously right; tests
// compare every engine with it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace seqfuse::kmer {

// Every k-mer of every sequence (uppercased; windows holding a letter other
// than A/C/G/T are skipped), keyed by itself or, when `canonical`, by the
// smaller of itself and its reverse complement.
[[nodiscard]] std::map<std::string, std::uint64_t> reference_counts(
    const std::vector<std::string>& sequences, int k, bool canonical);

[[nodiscard]] std::string reference_reverse_complement(std::string_view kmer);

}  // namespace seqfuse::kmer
