// Writing alignments in the formats users' tools read: TSV with a header,
// parasail_aligner's CSV, BLAST tabular (outfmt 6) and SAM.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "align/alignment.hpp"
#include "core/output_file.hpp"

namespace seqfuse::align {

enum class OutputFormat { tsv, csv, sam, blast6 };

// Throws UsageError for anything but tsv, csv, sam or blast6.
[[nodiscard]] OutputFormat parse_output_format(std::string_view name);
// "tsv", "csv", "sam", "blast6": what parse_output_format reads.
[[nodiscard]] const char* output_format_name(OutputFormat format) noexcept;
// blast6 and sam describe the aligned columns, so they need a traceback.
[[nodiscard]] constexpr bool needs_traceback(OutputFormat f) noexcept {
  return f == OutputFormat::sam || f == OutputFormat::blast6;
}

// One aligned pair as the writer sees it.
struct AlignmentRecord {
  std::size_t query_index = 0;  // record numbers in their files, 0-based (CSV)
  std::size_t target_index = 0;
  std::string_view query_name;  // up to the first whitespace
  std::string_view target_name;
  std::string_view query_sequence;  // as read (SAM's SEQ)
  std::size_t query_length = 0;
  std::size_t target_length = 0;
  // Null: SAM's unmapped record of a query without hits (no other format
  // writes one).
  const AlignResult* result = nullptr;
  bool reverse = false;            // the query's reverse complement was aligned (--strand)
  bool secondary = false;          // SAM: a hit of the query after its first
  std::string_view query_quality;  // as read (FASTQ), else empty
};

class AlignmentWriter {
 public:
  // SAM needs every target (reference) name and length for its header.
  struct Reference {
    std::string_view name;
    std::size_t length;
  };

  // Records per chunk that write_batch formats on one thread: large enough
  // that the hand-over costs nothing, small enough that a few chunks per
  // thread in flight stay a few MB.
  static constexpr std::size_t kBatchChunk = 16384;
  using RecordAt = std::function<AlignmentRecord(std::size_t index)>;

  AlignmentWriter(OutputFile& out, OutputFormat format, bool traceback,
                  std::string_view command_line);
  // TSV gets a last column, strand (+ or -): set before begin() when
  // --strand is not plus.
  void add_strand_column() noexcept { strand_column_ = true; }
  // Writes the header (TSV column names; SAM @HD, @SQ, @PG); once, first.
  void begin(const std::vector<Reference>& references);
  // Appends the line of one record to `line`. The only formatting code path;
  // const and touching no writer state, so threads may call it at once.
  void format(const AlignmentRecord& record, std::string& line) const;
  void write(const AlignmentRecord& record);
  // Writes record_at(0) ... record_at(count - 1), the same bytes as write()
  // on each in turn, formatted in chunks of `chunk` records on `threads`
  // threads. record_at is called from those threads.
  void write_batch(std::size_t count, const RecordAt& record_at, unsigned threads,
                   std::size_t chunk = kBatchChunk);

 private:
  OutputFile& out_;
  OutputFormat format_;
  bool traceback_;
  bool strand_column_ = false;
  std::string command_line_;
  std::string line_;  // reused for each record
};

}  // namespace seqfuse::align
