// One whole align-sw / align-nw run: the output opened first (an unwritable
// path fails before any work), the device chosen while the inputs are read,
// the job run on the chosen engine, hits written in order, the summary line.
#pragma once

#include "align/align_options.hpp"
#include "align/engine.hpp"
#include "core/report.hpp"

namespace seqfuse::align {

// Throws seqfuse::Error (or UsageError) for bad inputs, outputs or devices;
// on any error no output file is left behind.
AlignStats run_align(const AlignOptions& options, Reporter& report);

}  // namespace seqfuse::align
