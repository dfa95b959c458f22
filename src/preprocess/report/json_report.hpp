// fastq-trim's JSON report, key for key fastp 0.23.2's (jsonreporter.cpp),
// so MultiQC's fastp module and scripts written for fastp read it unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "preprocess/filter_counts.hpp"
#include "preprocess/report/adapter_listing.hpp"
#include "preprocess/report/read_stats.hpp"

namespace seqfuse::preprocess {

// fastp's version string. MultiQC 1.14's fastp module does not read
// "fastp_version", but other readers of fastp's JSON may, and the report is
// fastp 0.23.2's format key for key, so the report names the format it
// follows; seqfuse's own version goes in the HTML page and the command.
inline constexpr const char* kFastpFormatVersion = "0.23.2";

// Everything the reports print. The pointers are borrowed; read2_* are null
// in single-end mode. What each flag means is fastp's option of the same
// name: it decides whether a section or a key is written at all.
struct FastpReport {
  bool paired = false;
  const ReadStats* read1_before = nullptr;
  const ReadStats* read1_after = nullptr;
  const ReadStats* read2_before = nullptr;
  const ReadStats* read2_after = nullptr;
  const FilterCounts* counts = nullptr;
  // The adapter sequences listed, when a run listed them from its workers'
  // counts; else from counts->adapters_read1 and _read2.
  std::optional<AdapterListing> adapters1{}, adapters2{};
  // Absent with --dont_eval_duplication (no "duplication" section).
  std::optional<double> duplication_rate{};
  // fastp's adapterCuttingEnabled(): adapter trimming on, and in single-end
  // mode an adapter sequence given or detected. Writes "adapter_cutting".
  bool adapter_cutting = false;
  // The adapters as fastp prints them: the sequence, or "unspecified" when
  // none was given or detected (fastp's getAdapter1/getAdapter2).
  std::string adapter1 = "unspecified";
  std::string adapter2 = "unspecified";
  bool polyx_trimming = false;     // -x: writes "polyx_trimming"
  bool correction = false;         // -c: writes corrected_reads/_bases
  bool complexity_filter = false;  // -y: writes low_complexity_reads
  // Paired-end only; insert_size_peak(counts->insert_sizes) unless set.
  std::optional<int> insert_size_peak{};
  // The command line as the user typed it (fastp's "command" key). MultiQC
  // names the sample after the word following "-i" in it (else after the
  // file name), and finds the report only when its file name ends in
  // "fastp.json" (fastp's default -j).
  std::string command{};
  // The HTML page's title (fastp's -R, default "fastp report").
  std::string title = "fastp report";
  // Written as summary.fastp_version.
  std::string version = kFastpFormatVersion;
};

// fastp's insert-size peak: the first most frequent size in 0 .. max - 1,
// where the histogram's last bin (unknown sizes) is not a size.
[[nodiscard]] int insert_size_peak(const std::vector<std::uint64_t>& histogram);

// Writes the JSON report. Throws seqfuse::Error when read1_before,
// read1_after or counts is null, or, paired, read2_before or read2_after is.
void write_fastp_json(const FastpReport& report, std::ostream& out);

}  // namespace seqfuse::preprocess
