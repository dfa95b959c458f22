// The FASTQ record rule, written once for every line source, as
// fasta_text.hpp does for FASTA: RecordParser runs it over a LineBuffer
// (streamed input), kmer-count query -f over TextLines (a file already read
// whole, since stdin cannot be read twice). Both fail on the same records
// with the same words.
#pragma once

#include <string>
#include <string_view>

#include "io/batch.hpp"
#include "io/fasta_text.hpp"
#include "io/record_text.hpp"

namespace seqfuse::io {

// Appends one FASTQ record (header, sequence, '+' line, quality; blank lines
// between records allowed) from `lines` to `batch` and returns true, or
// returns false at the end. Throws RecordSyntaxError for a bad record.
template <class Lines>
bool parse_fastq_record(Lines& lines, SequenceBatch& batch) {
  std::string_view line[4];  // header, sequence, '+' line, quality
  for (;;) {
    const int c = lines.peek();
    if (c < 0) return false;
    if (!is_blank_byte(c)) break;
    (void)lines.take_lines(line, 1);
    if (!line[0].empty()) throw RecordSyntaxError{"expected '@' line, found " + quoted(line[0])};
  }
  // All four lines at once: one buffer check per record instead of per line.
  const std::size_t got = lines.take_lines(line, 4);
  if (line[0].front() != '@')
    throw RecordSyntaxError{"expected '@' line, found " + quoted(line[0])};
  if (got >= 3 && (line[2].empty() || line[2].front() != '+'))
    throw RecordSyntaxError{"expected '+' line, found " + quoted(line[2])};
  if (got < 4) throw RecordSyntaxError{"file ends inside a record"};
  const std::string_view seq = line[1];
  const std::string_view qual = line[3];
  if (has_binary_bytes(seq)) throw RecordSyntaxError{"binary data in sequence"};
  if (qual.size() != seq.size()) {
    throw RecordSyntaxError{"quality length " + std::to_string(qual.size()) +
                            " differs from sequence length " + std::to_string(seq.size())};
  }
  append_header(batch, line[0].substr(1));
  batch.bases.insert(batch.bases.end(), seq.begin(), seq.end());
  batch.quals.insert(batch.quals.end(), qual.begin(), qual.end());
  batch.commit_record();
  return true;
}

// Every FASTQ record of text in memory, appended to `batch`. On
// RecordSyntaxError the batch holds the complete records before the bad
// one, which is therefore record batch.size() + 1 of the text.
inline void parse_fastq_text(std::string_view text, SequenceBatch& batch) {
  TextLines lines(text);
  try {
    while (parse_fastq_record(lines, batch)) {
    }
  } catch (...) {
    batch.discard_partial_record();
    throw;
  }
}

}  // namespace seqfuse::io
