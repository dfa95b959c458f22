// seqfuse align-db: a TARGET set read, encoded and written once as a search
// database (search_db.hpp), so that every later align-sw / align-nw search
// maps it instead of parsing the FASTA again.
#pragma once

#include <string>

#include "core/report.hpp"

namespace seqfuse::align {

struct AlignDbOptions {
  std::string input;  // FASTA/FASTQ, plain or gzip, - for stdin
  std::string output;
  // The letters the codes index, chosen as align-sw / align-nw choose them:
  // --matrix's, else protein (BLOSUM62's letters) or DNA (A C G T and the
  // IUPAC codes); auto decides from the database's own letters.
  std::string alphabet = "auto";
  std::string matrix;
  unsigned threads = 1;
};

// Throws UsageError naming every problem with the values at once.
void validate(const AlignDbOptions& options);

// Reads, encodes and writes; the output appears whole or not at all. Throws
// Error naming the file for unreadable input or a letter outside the
// alphabet (the record and position), as align-sw would for that TARGET.
void run_align_db(const AlignDbOptions& options, Reporter& report);

}  // namespace seqfuse::align
