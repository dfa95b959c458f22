// What an align-sw / align-nw run is asked to do: the command line's values
// (src/cli/cli_align.cpp binds CLI11 to these fields) plus what the CLI
// resolves for it (threads, the device, the command line for SAM @PG).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "align/alignment.hpp"
#include "core/device_choice.hpp"

namespace seqfuse::align {

struct AlignOptions {
  AlignMode mode = AlignMode::local;
  std::string query;
  std::string target;  // empty: all against all within QUERY
  std::string output = "-";
  bool pairs = false;
  int top = 10;
  std::string matrix;  // empty: the alphabet's default
  std::optional<int> gap_open, gap_extend;
  std::optional<int> match, mismatch;
  std::string alphabet = "auto";
  bool traceback = false;
  std::string format = "tsv";
  // --strand plus|minus|both (strand.hpp): DNA only.
  std::string strand = "plus";
  // --min-score S: hits scoring below S are not written (SAM: a query left
  // without hits gets an unmapped record).
  std::optional<int> min_score;
  // --db-part i/N: search only part i of N of TARGET (db_part.hpp); empty: all.
  std::string db_part;

  unsigned threads = 1;
  // Picks the device (and may throw as --device resolution does). It runs on
  // a thread of its own while the inputs are read, so that a GPU's start-up
  // (~0.3 s for the driver and its context) overlaps reading. Null: the CPU.
  std::function<DeviceChoice()> choose_device;
  // --device gpu or gpu:N: a scheme the GPU engine cannot take is an error,
  // not a warning and a CPU run.
  bool gpu_required = false;
  std::string command_line;  // as typed, for SAM's @PG line
};

// Throws UsageError naming every problem with the values at once, before any work.
void validate(const AlignOptions& options);

}  // namespace seqfuse::align
