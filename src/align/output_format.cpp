#include "align/output_format.hpp"

#include <charconv>
#include <cstdio>

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

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
  if (name == "tsv") return OutputFormat::tsv;
  if (name == "csv") return OutputFormat::csv;
  if (name == "sam") return OutputFormat::sam;
  if (name == "blast6") return OutputFormat::blast6;
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

void AlignmentWriter::write(const AlignmentRecord& r) {
  line_.clear();
  switch (format_) {
    case OutputFormat::tsv:
      write_tsv(r, '\t');
      break;
    case OutputFormat::csv:
      write_csv(r);
      break;
    case OutputFormat::blast6:
      write_blast6(r);
      break;
    case OutputFormat::sam:
      write_sam(r);
      break;
  }
  out_.write(line_);
}

void AlignmentWriter::write_tsv(const AlignmentRecord& r, char sep) {
  const AlignResult& a = *r.result;
  line_ += r.query_name;
  line_ += sep;
  line_ += r.target_name;
  for (long long v : {static_cast<long long>(r.query_length),
                      static_cast<long long>(r.target_length), static_cast<long long>(a.score),
                      static_cast<long long>(a.query_end), static_cast<long long>(a.target_end)}) {
    line_ += sep;
    append_int(line_, v);
  }
  if (traceback_) {
    line_ += sep;
    append_int(line_, a.query_begin);
    line_ += sep;
    append_int(line_, a.target_begin);
    line_ += sep;
    line_ += a.cigar.empty() ? "*" : a.cigar;
    line_ += sep;
    append_fixed(line_, a.identity(), 4);
    line_ += sep;
    append_int(line_, a.matches);
    line_ += sep;
    append_int(line_, a.alignment_length);
  }
  line_ += '\n';
}

// parasail_aligner's CSV: query index, target index, query length, target
// length, score, query end, target end; so the two can be diffed directly.
void AlignmentWriter::write_csv(const AlignmentRecord& r) {
  const AlignResult& a = *r.result;
  bool first = true;
  for (long long v : {static_cast<long long>(r.query_index), static_cast<long long>(r.target_index),
                      static_cast<long long>(r.query_length),
                      static_cast<long long>(r.target_length), static_cast<long long>(a.score),
                      static_cast<long long>(a.query_end), static_cast<long long>(a.target_end)}) {
    if (!first) line_ += ',';
    first = false;
    append_int(line_, v);
  }
  line_ += '\n';
}

// qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue
// bitscore. seqfuse computes no alignment statistics: evalue is "NA" and the
// last column holds the raw score.
void AlignmentWriter::write_blast6(const AlignmentRecord& r) {
  const AlignResult& a = *r.result;
  const CigarCounts counts = count_cigar(a.cigar);
  line_ += r.query_name;
  line_ += '\t';
  line_ += r.target_name;
  line_ += '\t';
  append_fixed(line_, 100.0 * a.identity(), 3);
  for (long long v :
       {static_cast<long long>(a.alignment_length), counts.mismatches, counts.gap_opens,
        static_cast<long long>(a.query_begin) + 1, static_cast<long long>(a.query_end) + 1,
        static_cast<long long>(a.target_begin) + 1, static_cast<long long>(a.target_end) + 1}) {
    line_ += '\t';
    append_int(line_, v);
  }
  line_ += "\tNA\t";
  append_int(line_, a.score);
  line_ += '\n';
}

// The target is the reference. Local alignments soft-clip the query's
// unaligned ends; a pair without aligned columns is an unmapped record.
void AlignmentWriter::write_sam(const AlignmentRecord& r) {
  const AlignResult& a = *r.result;
  const bool aligned = !a.cigar.empty();
  line_ += r.query_name.empty() ? std::string_view("*") : r.query_name;
  line_ += aligned ? "\t0\t" : "\t4\t";
  line_ += aligned ? r.target_name : std::string_view("*");
  line_ += '\t';
  append_int(line_, aligned ? a.target_begin + 1 : 0);
  line_ += aligned ? "\t255\t" : "\t0\t";
  if (aligned) {
    if (a.query_begin > 0) {
      append_int(line_, a.query_begin);
      line_ += 'S';
    }
    line_ += a.cigar;
    const long long tail = static_cast<long long>(r.query_length) - 1 - a.query_end;
    if (tail > 0) {
      append_int(line_, tail);
      line_ += 'S';
    }
  } else {
    line_ += '*';
  }
  line_ += "\t*\t0\t0\t";
  line_ += r.query_sequence.empty() ? std::string_view("*") : r.query_sequence;
  line_ += "\t*\tAS:i:";
  append_int(line_, a.score);
  if (aligned) {
    line_ += "\tNM:i:";
    append_int(line_, a.alignment_length - a.matches);
  }
  line_ += '\n';
}

}  // namespace seqfuse::align
