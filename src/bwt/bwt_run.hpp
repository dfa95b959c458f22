// One whole `seqfuse bwt` run: every output opened first (an unwritable
// prefix fails before any work), the reference packed as bwa packs it, the
// suffix array sorted by the engine, the index files written, and all of
// them committed together at the end, so a failed run leaves none.
#pragma once

#include <cstdint>
#include <string>

#include "bwt/bwt_options.hpp"
#include "core/report.hpp"

namespace seqfuse::bwt {

struct BwtStats {
  std::uint64_t records = 0;
  std::uint64_t bases = 0;     // of the reference, forward strand
  std::uint64_t suffixes = 0;  // sorted: both strands (or the forward one) plus '$'
  std::string engine;          // "cpu"
};

// Throws UsageError for options that cannot run and seqfuse::Error for a
// bad reference, an unwritable prefix or a text over -m; on any error no
// index file is left behind.
BwtStats run_bwt(const BwtOptions& options, Reporter& report);

}  // namespace seqfuse::bwt
