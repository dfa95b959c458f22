// Writing alignments in the formats users' tools read: TSV with a header,
// parasail_aligner's CSV, BLAST tabular (outfmt 6) and SAM.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "align/alignment.hpp"
#include "core/output_file.hpp"

namespace seqfuse::align {

enum class OutputFormat { tsv, csv, sam, blast6 };

// Throws UsageError for anything but tsv, csv, sam or blast6.
[[nodiscard]] OutputFormat parse_output_format(std::string_view name);
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
  const AlignResult* result = nullptr;
};

class AlignmentWriter {
 public:
  // SAM needs every target (reference) name and length for its header.
  struct Reference {
    std::string_view name;
    std::size_t length;
  };

  AlignmentWriter(OutputFile& out, OutputFormat format, bool traceback,
                  std::string_view command_line);
  // Writes the header (TSV column names; SAM @HD, @SQ, @PG); once, first.
  void begin(const std::vector<Reference>& references);
  void write(const AlignmentRecord& record);

 private:
  void write_tsv(const AlignmentRecord& r, char separator);
  void write_csv(const AlignmentRecord& r);
  void write_blast6(const AlignmentRecord& r);
  void write_sam(const AlignmentRecord& r);

  OutputFile& out_;
  OutputFormat format_;
  bool traceback_;
  std::string command_line_;
  std::string line_;  // reused for each record
};

}  // namespace seqfuse::align
