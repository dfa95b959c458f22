// What a fastq-trim run counts while it trims and filters, per thread, merged
// at the end: the numbers fastp 0.23.2 keeps in its FilterResult plus the
// paired-end insert-size histogram. The trimming code fills them; the JSON
// and HTML reports read them (json_report.hpp, html_report.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace seqfuse::preprocess {

// Why a read (a pair, in paired-end mode) was kept or dropped. The values are
// fastp's result codes, so the counters below index by them directly.
enum class ReadFate : std::uint8_t {
  passed = 0,
  poly_x = 4,
  overlap = 8,
  too_many_n = 12,
  too_short = 16,
  too_long = 17,
  low_quality = 20,
  low_complexity = 24,
};
inline constexpr std::size_t kFateSlots = 32;

// fastp lists adapter sequences shorter first, then in byte order.
struct ShorterFirst {
  bool operator()(std::string_view a, std::string_view b) const {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  }
};
// The adapter sequences cut and how often each was, hashed: nearly every
// read that runs past its insert cuts a sequence of its own, so a run of a
// few million pairs counts tens of thousands of them. Reports order them
// (adapter_listing.hpp).
struct SequenceHash {
  using is_transparent = void;  // looked up by string_view, no string made
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};
using AdapterCounts = std::unordered_map<std::string, std::uint64_t, SequenceHash, std::equal_to<>>;
inline void count_adapter(AdapterCounts& counts, std::string_view sequence, std::uint64_t n = 1) {
  if (const auto found = counts.find(sequence); found != counts.end())
    found->second += n;
  else
    counts.emplace(sequence, n);
}

// fastp's default --insert_size_max is 512; bin 512 counts pairs whose
// insert size is unknown (no overlap found).
inline constexpr std::size_t kInsertSizeMax = 512;

struct FilterCounts {
  // Reads by fate, indexed by ReadFate's value. As in fastp, a pair adds 2.
  std::array<std::uint64_t, kFateSlots> reads{};
  std::uint64_t adapter_trimmed_reads = 0;
  std::uint64_t adapter_trimmed_bases = 0;
  // The trimmed-off adapter sequences and how often each was cut.
  AdapterCounts adapters_read1, adapters_read2;
  // Poly-X tails trimmed, by base (A, C, G, T): reads and bases.
  std::array<std::uint64_t, 4> polyx_reads{}, polyx_bases{};
  // Base correction (-c): corrected reads, and bases by (from & 7) * 8 + (to & 7)
  // of the ASCII letters, fastp's matrix.
  std::uint64_t corrected_reads = 0;
  std::array<std::uint64_t, 64> corrections{};
  // Paired-end only: insert sizes 0 .. kInsertSizeMax - 1, then unknown.
  std::vector<std::uint64_t> insert_sizes = std::vector<std::uint64_t>(kInsertSizeMax + 1, 0);

  [[nodiscard]] std::uint64_t count(ReadFate fate) const {
    return reads[static_cast<std::size_t>(fate)];
  }
  void add(ReadFate fate, std::uint64_t n = 1) { reads[static_cast<std::size_t>(fate)] += n; }

  void merge(const FilterCounts& other) {
    merge_numbers(other);
    for (const auto& [sequence, n] : other.adapters_read1)
      count_adapter(adapters_read1, sequence, n);
    for (const auto& [sequence, n] : other.adapters_read2)
      count_adapter(adapters_read2, sequence, n);
  }
  // Everything but the adapter sequences, which a run lists from its
  // workers' counts without merging them (adapter_listing.hpp).
  void merge_numbers(const FilterCounts& other) {
    for (std::size_t i = 0; i < kFateSlots; ++i) reads[i] += other.reads[i];
    adapter_trimmed_reads += other.adapter_trimmed_reads;
    adapter_trimmed_bases += other.adapter_trimmed_bases;
    for (std::size_t b = 0; b < 4; ++b) {
      polyx_reads[b] += other.polyx_reads[b];
      polyx_bases[b] += other.polyx_bases[b];
    }
    corrected_reads += other.corrected_reads;
    for (std::size_t i = 0; i < corrections.size(); ++i) corrections[i] += other.corrections[i];
    for (std::size_t i = 0; i < insert_sizes.size(); ++i) insert_sizes[i] += other.insert_sizes[i];
  }
};

}  // namespace seqfuse::preprocess
