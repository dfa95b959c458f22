// fastp's evaluation pass before trimming (its Evaluator): what it learns
// from the start of the input files. Both re-open the file, so neither runs
// on standard input (fastp skips them there too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace seqfuse::preprocess {

struct InputGlance {
  // The first read's header names a two-colour instrument (NextSeq, NovaSeq:
  // "@NS", "@NB", "@NDX", "@A0"), where fastp turns poly-G trimming on.
  bool two_colour = false;
  // The longest of the first 1,000 reads (fastp's seqLen; sizes the stats).
  int read_length = 0;
  std::uint64_t records = 0;  // of the first 1,000
};

[[nodiscard]] InputGlance glance_at_input(const std::string& path);

// fastp 0.23.2's adapter auto-detection (evalAdapterAndReadNum): up to
// 256 Ki reads (or 151 x 256 Ki bases) from the start of `path`; 10-mers
// from position 20 on, the frequent ones extended into a dominant sequence
// both ways, a known adapter preferred. Empty when none is found; nullopt
// when the file has fewer than 10,000 reads (too few to tell). trim_tail1
// is -t, which fastp keeps off the end of each read while counting.
[[nodiscard]] std::optional<std::string> detect_adapter(const std::string& path, int trim_tail1);

}  // namespace seqfuse::preprocess
