#include "kmer/reference.hpp"

#include <algorithm>
#include <cctype>

namespace seqfuse::kmer {

std::string reference_reverse_complement(std::string_view kmer) {
  std::string rc(kmer.rbegin(), kmer.rend());
  for (char& c : rc) {
    switch (c) {
      case 'A':
        c = 'T';
        break;
      case 'C':
        c = 'G';
        break;
      case 'G':
        c = 'C';
        break;
      case 'T':
        c = 'A';
        break;
      default:
        break;
    }
  }
  return rc;
}

std::map<std::string, std::uint64_t> reference_counts(const std::vector<std::string>& sequences,
                                                      int k, bool canonical) {
  std::map<std::string, std::uint64_t> counts;
  const auto is_base = [](char c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T'; };
  for (const std::string& sequence : sequences) {
    std::string upper = sequence;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (std::size_t i = 0; i + static_cast<std::size_t>(k) <= upper.size(); ++i) {
      std::string kmer = upper.substr(i, static_cast<std::size_t>(k));
      if (!std::all_of(kmer.begin(), kmer.end(), is_base)) continue;
      if (canonical) kmer = std::min(kmer, reference_reverse_complement(kmer));
      ++counts[kmer];
    }
  }
  return counts;
}

}  // namespace seqfuse::kmer
