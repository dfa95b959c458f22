// fastq-trim's input: chunks of records, or of pairs (two files, or one
// interleaved file), a group of chunks at a time, checking that the mates
// keep step.
//
// Two ways to read. Most runs take the sliced one: the reading thread of each
// file only cuts whole records out of it (FastqSlicer) and the workers parse
// their chunk's fields (parse). With -D, whose duplicate marks need the
// records in input order, and with interleaved input, each record is parsed
// as it is read (FastqRecordReader), and parse does nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "preprocess/fastq_records.hpp"
#include "preprocess/fastq_slicer.hpp"
#include "preprocess/report/duplication.hpp"
#include "preprocess/trim_options.hpp"

namespace seqfuse::preprocess {

struct Slot {
  ReadChunk reads, mates;
  bool sliced = false;  // records not parsed yet (ReadSource::parse)
};

class ReadSource {
 public:
  // `duplication` (nullable) sees every record (pair) as it is read: in
  // input order, so which copy of a duplicate counts as the first is
  // fastp's with one worker (-w 1), whatever -w is here.
  ReadSource(const TrimOptions& o, Duplication* duplication, std::size_t chunk_records);
  ~ReadSource();

  [[nodiscard]] bool paired() const { return interleaved_ || has_second_file_; }

  // Fills the group's slots from the front; returns how many got records.
  // An error that belongs after every record of this group (read 1 ended
  // where read 2 goes on) comes back in `after`, to be thrown once the
  // group's own records have been checked.
  std::size_t fill_group(std::vector<Slot>& group, std::exception_ptr& after);

  // On a worker, before the slot's reads are used: parses a sliced slot and
  // checks that its mates keep step. Throws the first malformed record's error.
  void parse(Slot& slot) const;

  [[nodiscard]] std::uint64_t records() const { return records_; }
  [[nodiscard]] const std::string& name1() const;

 private:
  struct Published;
  bool fill(Slot& slot);
  bool next(Slot& slot);
  bool next_record(Slot& slot);
  std::size_t slice_group(std::vector<Slot>& group, std::exception_ptr& after);
  void slice_mates(std::vector<Slot>& group, Published& published);
  [[nodiscard]] std::size_t records_wanted() const;

  std::size_t chunk_records_;
  bool interleaved_;
  bool has_second_file_;
  bool phred64_;
  Duplication* duplication_;
  std::uint64_t limit_;
  // Parsed as read (-D, interleaved) ...
  std::unique_ptr<FastqRecordReader> reader1_, reader2_;
  // ... or sliced.
  std::unique_ptr<FastqSlicer> slicer1_, slicer2_;
  std::uint64_t records_ = 0;
};

}  // namespace seqfuse::preprocess
