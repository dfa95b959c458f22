// fastq-trim's HTML report: one self-contained page (no scripts from
// elsewhere; charts are inline SVG drawn here) with the summary, filtering
// result, adapters, duplication, insert sizes and the per-cycle quality and
// base-content curves of each read before and after filtering.
#pragma once

#include <ostream>

#include "preprocess/report/json_report.hpp"

namespace seqfuse::preprocess {

// Same inputs and the same null checks as write_fastp_json.
void write_fastp_html(const FastpReport& report, std::ostream& out);

}  // namespace seqfuse::preprocess
