// RecordParser: FASTA/FASTQ text -> SequenceBatch, appending straight into the
// batch's flat arrays (no per-record strings). Both SequenceReader and
// BatchReader are built on it.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "io/batch.hpp"
#include "io/compressed_input.hpp"
#include "io/line_buffer.hpp"

namespace seqfuse::io {

class RecordParser {
 public:
  // Opens the input (throws seqfuse::Error "cannot open ..."); the format is
  // detected on the first fill().
  explicit RecordParser(const std::string& path);

  // Replaces the contents of `batch` with the next records, up to `limits`.
  // Returns false (and leaves `batch` empty) once the input is exhausted.
  // On a parse or read error throws seqfuse::Error; `batch` then holds the
  // complete records before the bad one, and every later call throws again.
  bool fill(SequenceBatch& batch, const BatchLimits& limits);

  // See LineBuffer::set_cancel_flag: fill() throws ReadCancelled once it is set.
  void set_cancel_flag(const std::atomic<bool>* cancel) noexcept { lines_.set_cancel_flag(cancel); }

  [[nodiscard]] const std::string& display_name() const noexcept { return input_.display_name(); }
  // Uncompressed input bytes read so far (safe to call from another thread).
  [[nodiscard]] std::uint64_t bytes_read() const noexcept { return input_.bytes_read(); }

 private:
  // Reads up to the first record; returns std::nullopt for an input that holds
  // no records (empty or blank lines only).
  // (The records themselves come from the shared rules in fasta_text.hpp
  // and fastq_text.hpp.)
  std::optional<SequenceFormat> detect_format();

  // "<file>: record <n>: <what>" for the record being parsed.
  [[nodiscard]] Error record_error(const std::string& what) const;

  CompressedInput input_;
  LineBuffer lines_;
  bool format_known_ = false;
  std::optional<SequenceFormat> format_;
  std::uint64_t records_parsed_ = 0;  // complete records so far, including carry_
  // The record that pushed the previous batch over max_bases; it opens the next one.
  SequenceBatch carry_;
  std::exception_ptr failure_;  // sticky: the input position is lost after an error
};

}  // namespace seqfuse::io
