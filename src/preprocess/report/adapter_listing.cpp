#include "preprocess/report/adapter_listing.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "core/parallel.hpp"

namespace seqfuse::preprocess {
namespace {

// fastp's test: a sequence is listed unless count / total < 0.01.
bool listed(std::uint64_t n, std::uint64_t total) {
  constexpr double kReportThreshold = 0.01;
  return !(static_cast<double>(n) / static_cast<double>(total) < kReportThreshold);
}

}  // namespace

AdapterListing list_adapters(std::span<const AdapterCounts* const> parts, unsigned threads) {
  // Each part's total and the sequences that make at least 1 % of it (a
  // little under 1 %, so that rounding never leaves one out: the test on
  // the sums decides).
  std::vector<std::uint64_t> totals(parts.size(), 0);
  std::vector<std::vector<std::string_view>> frequent(parts.size());
  parallel_chunks(parts.size(), 1, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      for (const auto& entry : *parts[p]) totals[p] += entry.second;
      for (const auto& [sequence, n] : *parts[p])
        if (n * 101 >= totals[p]) frequent[p].push_back(sequence);
    }
  });
  AdapterListing listing;
  for (const std::uint64_t t : totals) listing.total += t;
  listing.others = listing.total;
  if (listing.total == 0) return listing;
  std::unordered_set<std::string_view> seen;
  std::vector<std::string_view> candidates;
  for (const auto& part : frequent)
    for (const std::string_view sequence : part)
      if (seen.insert(sequence).second) candidates.push_back(sequence);
  std::vector<std::uint64_t> sums(candidates.size(), 0);
  parallel_chunks(candidates.size(), 16, threads,
                  [&](unsigned, std::size_t begin, std::size_t end) {
                    for (std::size_t c = begin; c < end; ++c)
                      for (const AdapterCounts* part : parts)
                        if (const auto found = part->find(candidates[c]); found != part->end())
                          sums[c] += found->second;
                  });
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (!listed(sums[c], listing.total)) continue;
    listing.listed.emplace_back(std::string(candidates[c]), sums[c]);
    listing.others -= sums[c];
  }
  std::sort(listing.listed.begin(), listing.listed.end(),
            [](const auto& a, const auto& b) { return ShorterFirst{}(a.first, b.first); });
  return listing;
}

}  // namespace seqfuse::preprocess
