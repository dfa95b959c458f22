#include "align/output_format.hpp"

#include <charconv>
#include <cstdio>

#include "align/ordered_output.hpp"
#include "align/strand.hpp"
#include "core/error.hpp"
#include "core/version.hpp"

namespace seqfuse::align {
namespace {

void append_int(std::string& line, long long value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  line.append(digits, end);
}

void append_fixed(std::string& line, double value, int decimals) {
  char text[32];
  const int n = std::snprintf(text, sizeof text, "%.*f", decimals, value);
  line.append(text, static_cast<std::size_t>(n));
}

// Columns of each kind in a CIGAR of '=', 'X', 'I', 'D' runs.
struct CigarCounts {
  long long mismatches = 0;
  long long gap_opens = 0;
};

CigarCounts count_cigar(std::string_view cigar) {
  CigarCounts counts;
  long long run = 0;
  for (char c : cigar) {
    if (c >= '0' && c <= '9') {
      run = run * 10 + (c - '0');
      continue;
    }
    if (c == 'X') counts.mismatches += run;
    if (c == 'I' || c == 'D') ++counts.gap_opens;
    run = 0;
  }
  return counts;
}

void append_tsv(std::string& line, const AlignmentRecord& r, char sep, bool traceback,
                bool strand) {
  const AlignResult& a = *r.result;
  line += r.query_name;
  line += sep;
  line += r.target_name;
  for (long long v : {static_cast<long long>(r.query_length),
                      static_cast<long long>(r.target_length), static_cast<long long>(a.score),
                      static_cast<long long>(a.query_end), static_cast<long long>(a.target_end)}) {
    line += sep;
    append_int(line, v);
  }
  if (traceback) {
    line += sep;
    append_int(line, a.query_begin);
    line += sep;
    append_int(line, a.target_begin);
    line += sep;
    line += a.cigar.empty() ? "*" : a.cigar;
    line += sep;
    append_fixed(line, a.identity(), 4);
    line += sep;
    append_int(line, a.matches);
    line += sep;
    append_int(line, a.alignment_length);
  }
  if (strand) {
    line += sep;
    line += r.reverse ? '-' : '+';
  }
  line += '\n';
}

// parasail_aligner's CSV: query index, target index, query length, target
// length, score, query end, target end; so the two can be diffed directly.
void append_csv(std::string& line, const AlignmentRecord& r) {
  const AlignResult& a = *r.result;
  bool first = true;
  for (long long v : {static_cast<long long>(r.query_index), static_cast<long long>(r.target_index),
                      static_cast<long long>(r.query_length),
                      static_cast<long long>(r.target_length), static_cast<long long>(a.score),
                      static_cast<long long>(a.query_end), static_cast<long long>(a.target_end)}) {
    if (!first) line += ',';
    first = false;
    append_int(line, v);
  }
  line += '\n';
}

// qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue
// bitscore. seqfuse computes no alignment statistics: evalue is "NA" and the
// last column holds the raw score. A reverse-strand hit is written as BLAST
// writes one: query positions on the query as given (qstart < qend), the
// subject's from its end back to its start (sstart > send).
void append_blast6(std::string& line, const AlignmentRecord& r) {
  const AlignResult& a = *r.result;
  const CigarCounts counts = count_cigar(a.cigar);
  const long long length = static_cast<long long>(r.query_length);
  const long long qstart = r.reverse ? length - a.query_end : a.query_begin + 1;
  const long long qend = r.reverse ? length - a.query_begin : a.query_end + 1;
  const long long sstart = (r.reverse ? a.target_end : a.target_begin) + 1;
  const long long send = (r.reverse ? a.target_begin : a.target_end) + 1;
  line += r.query_name;
  line += '\t';
  line += r.target_name;
  line += '\t';
  append_fixed(line, 100.0 * a.identity(), 3);
  for (long long v : {static_cast<long long>(a.alignment_length), counts.mismatches,
                      counts.gap_opens, qstart, qend, sstart, send}) {
    line += '\t';
    append_int(line, v);
  }
  line += "\tNA\t";
  append_int(line, a.score);
  line += '\n';
}

// The target is the reference. Local alignments soft-clip the query's
// unaligned ends. FLAG 16: the reverse strand, SEQ and QUAL then reverse
// complemented and reversed as SAM stores them; 256: a hit after the
// query's first. Every line carries SEQ and QUAL (SAM allows '*' on
// secondary lines; keeping them lets align-merge promote any line to
// primary). No result (a query without hits) or no aligned column (local
// score 0): an unmapped record, FLAG 4.
void append_sam(std::string& line, const AlignmentRecord& r) {
  const AlignResult* a = r.result;
  const bool aligned = a != nullptr && !a->cigar.empty();
  line += r.query_name.empty() ? std::string_view("*") : r.query_name;
  line += '\t';
  append_int(line, !aligned ? 4 : (r.reverse ? 16 : 0) | (r.secondary ? 256 : 0));
  line += '\t';
  line += aligned ? r.target_name : std::string_view("*");
  line += '\t';
  append_int(line, aligned ? a->target_begin + 1 : 0);
  line += aligned ? "\t255\t" : "\t0\t";
  if (aligned) {
    if (a->query_begin > 0) {
      append_int(line, a->query_begin);
      line += 'S';
    }
    line += a->cigar;
    const long long tail = static_cast<long long>(r.query_length) - 1 - a->query_end;
    if (tail > 0) {
      append_int(line, tail);
      line += 'S';
    }
  } else {
    line += '*';
  }
  line += "\t*\t0\t0\t";
  const bool reverse = aligned && r.reverse;
  if (r.query_sequence.empty())
    line += '*';
  else if (reverse)
    append_reverse_complement(r.query_sequence, line);
  else
    line += r.query_sequence;
  line += '\t';
  if (r.query_quality.empty())
    line += '*';
  else if (reverse)
    line.append(r.query_quality.rbegin(), r.query_quality.rend());
  else
    line += r.query_quality;
  if (a != nullptr) {
    line += "\tAS:i:";
    append_int(line, a->score);
  }
  if (aligned) {
    line += "\tNM:i:";
    append_int(line, a->alignment_length - a->matches);
  }
  line += '\n';
}

}  // namespace

const char* output_format_name(OutputFormat format) noexcept {
  switch (format) {
    case OutputFormat::tsv:
      return "tsv";
    case OutputFormat::csv:
      return "csv";
    case OutputFormat::sam:
      return "sam";
    case OutputFormat::blast6:
      return "blast6";
  }
  return "?";
}

OutputFormat parse_output_format(std::string_view name) {
  for (const OutputFormat format :
       {OutputFormat::tsv, OutputFormat::csv, OutputFormat::sam, OutputFormat::blast6})
    if (name == output_format_name(format)) return format;
  throw UsageError("--format must be tsv, csv, sam or blast6, not '" + std::string(name) + "'");
}

AlignmentWriter::AlignmentWriter(OutputFile& out, OutputFormat format, bool traceback,
                                 std::string_view command_line)
    : out_(out),
      format_(format),
      traceback_(traceback || needs_traceback(format)),
      command_line_(command_line) {}

void AlignmentWriter::begin(const std::vector<Reference>& references) {
  std::string header;
  switch (format_) {
    case OutputFormat::tsv:
      header = "query\ttarget\tquery_len\ttarget_len\tscore\tquery_end\ttarget_end";
      if (traceback_)
        header += "\tquery_begin\ttarget_begin\tcigar\tidentity\tmatches\talignment_len";
      if (strand_column_) header += "\tstrand";
      header += '\n';
      break;
    case OutputFormat::sam:
      header = "@HD\tVN:1.6\tSO:unsorted\n";
      for (const auto& ref : references) {
        header += "@SQ\tSN:";
        header += ref.name;
        header += "\tLN:";
        append_int(header, static_cast<long long>(ref.length));
        header += '\n';
      }
      header += std::string("@PG\tID:seqfuse\tPN:seqfuse\tVN:") + kVersion +
                "\tCL:" + command_line_ + '\n';
      break;
    case OutputFormat::csv:
    case OutputFormat::blast6:
      break;  // no header: both are read positionally
  }
  out_.write(header);
}

void AlignmentWriter::format(const AlignmentRecord& r, std::string& line) const {
  switch (format_) {
    case OutputFormat::tsv:
      append_tsv(line, r, '\t', traceback_, strand_column_);
      break;
    case OutputFormat::csv:
      append_csv(line, r);
      break;
    case OutputFormat::blast6:
      append_blast6(line, r);
      break;
    case OutputFormat::sam:
      append_sam(line, r);
      break;
  }
}

void AlignmentWriter::write(const AlignmentRecord& r) {
  line_.clear();
  format(r, line_);
  out_.write(line_);
}

void AlignmentWriter::write_batch(std::size_t count, const RecordAt& record_at, unsigned threads,
                                  std::size_t chunk) {
  format_in_order(
      count, chunk, threads,
      [&](std::size_t begin, std::size_t end, std::string& text) {
        for (std::size_t i = begin; i < end; ++i) format(record_at(i), text);
      },
      [&](std::string_view text) { out_.write(text); });
}

}  // namespace seqfuse::align
