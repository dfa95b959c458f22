// How many k-mers have each count, printed as `jellyfish histo` prints it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kmer/record_block.hpp"

namespace seqfuse::kmer {

// jellyfish histo's -l/-h/-i/-f, with its defaults.
struct HistoParams {
  std::uint64_t low = 1;
  std::uint64_t high = 10000;
  std::uint64_t increment = 1;
  bool full = false;  // print empty buckets too
};

// Throws UsageError when the parameters make no histogram (high < low,
// increment 0).
void validate(const HistoParams& params);

class CountHistogram {
 public:
  void add(const RecordBlock& block);
  void add(std::uint32_t count, std::uint64_t kmers = 1);
  void add(const CountHistogram& other);  // the k-mers of both

  // Jellyfish 2.3's buckets, labels and catch-all, line for line:
  //   base = increment >= low ? 0 : low - increment;  ceil = high + increment
  //   buckets = (ceil + increment - base) / increment, labelled base + i * increment
  //   count < base -> bucket 0; count > ceil -> the last bucket (the catch-all,
  //   labelled high + 1 with the defaults); else bucket (count - base) / increment
  // Empty buckets are skipped unless `full`. With the defaults that is one
  // "count kmers" line per count from 1 to 10000 present, then "10001 N" for
  // the k-mers seen more than 10000 times.
  [[nodiscard]] std::string jellyfish_text(const HistoParams& params = {}) const;

  [[nodiscard]] std::uint64_t distinct() const noexcept { return distinct_; }

 private:
  static constexpr std::uint32_t kDenseCounts = 1u << 16;
  std::vector<std::uint64_t> dense_ = std::vector<std::uint64_t>(kDenseCounts, 0);
  std::map<std::uint32_t, std::uint64_t> sparse_;  // counts of kDenseCounts and more
  std::uint64_t distinct_ = 0;
};

}  // namespace seqfuse::kmer
