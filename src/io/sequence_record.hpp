// SequenceRecord: one FASTA/FASTQ record as owned strings, for code that
// handles a few sequences at a time (queries, references, tests).
#pragma once

#include <string>

namespace seqfuse::io {

struct SequenceRecord {
  std::string name;     // header text up to the first space or tab
  std::string comment;  // rest of the header after that whitespace run
  std::string seq;      // as in the file: case kept, line breaks removed
  std::string qual;     // FASTQ quality string; empty for FASTA

  friend bool operator==(const SequenceRecord&, const SequenceRecord&) = default;
};

}  // namespace seqfuse::io
