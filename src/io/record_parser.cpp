#include "io/record_parser.hpp"

#include "core/error.hpp"
#include "io/fasta_text.hpp"
#include "io/fastq_text.hpp"
#include "io/record_text.hpp"

namespace seqfuse::io {

RecordParser::RecordParser(const std::string& path) : input_(path), lines_(input_) {}

bool RecordParser::fill(SequenceBatch& batch, const BatchLimits& limits) {
  batch.clear();
  if (failure_) std::rethrow_exception(failure_);
  try {
    if (!format_known_) {
      format_ = detect_format();
      format_known_ = true;
    }
    if (!format_) return false;
    batch.format = *format_;
    batch.first_record = records_parsed_ - carry_.size();
    if (!carry_.empty()) {
      batch.push_back_from(carry_, 0);
      carry_.clear();
    }
    const bool fastq = *format_ == SequenceFormat::fastq;
    // `batch.empty() ||` guarantees progress even with limits of zero.
    while (batch.empty() ||
           (batch.size() < limits.max_records && batch.total_bases() < limits.max_bases)) {
      const bool parsed =
          fastq ? parse_fastq_record(lines_, batch) : parse_fasta_record(lines_, batch);
      if (!parsed) break;
      ++records_parsed_;
      if (batch.size() > 1 && batch.total_bases() > limits.max_bases) {
        carry_.format = batch.format;
        carry_.push_back_from(batch, batch.size() - 1);
        batch.pop_back();
        break;
      }
    }
  } catch (const ReadCancelled&) {
    batch.discard_partial_record();
    throw;
  } catch (const RecordSyntaxError& bad) {
    // The shared record rules (fasta_text.hpp, fastq_text.hpp, record_text.hpp) know neither
    // the file nor the record number; both are added here.
    batch.discard_partial_record();
    failure_ = std::make_exception_ptr(record_error(bad.what));
    std::rethrow_exception(failure_);
  } catch (...) {
    batch.discard_partial_record();
    failure_ = std::current_exception();
    throw;
  }
  return !batch.empty();
}

std::optional<SequenceFormat> RecordParser::detect_format() {
  for (;;) {
    const int c = lines_.peek();
    if (c < 0) return std::nullopt;
    if (c == '>') return SequenceFormat::fasta;
    if (c == '@') return SequenceFormat::fastq;
    auto first = static_cast<unsigned char>(c);
    if (is_blank_byte(c)) {
      std::string_view line;
      (void)lines_.take_lines(&line, 1);
      const auto non_cr = line.find_first_not_of('\r');
      if (non_cr == std::string_view::npos) continue;  // a blank line
      first = static_cast<unsigned char>(line[non_cr]);
    }
    // htslib needs a whole gzip header to recognise gzip; a file cut inside its
    // header arrives here as "plain" text starting with the magic byte 0x1f.
    constexpr unsigned char kGzipMagic = 0x1f;
    if (first == kGzipMagic && !input_.compressed()) {
      throw Error(display_name() + ": truncated or corrupt gzip input");
    }
    throw Error(display_name() + ": not FASTA or FASTQ (first byte 0x" + hex_digits(first) + ")");
  }
}

Error RecordParser::record_error(const std::string& what) const {
  return Error(display_name() + ": record " + std::to_string(records_parsed_ + 1) + ": " + what);
}

}  // namespace seqfuse::io
