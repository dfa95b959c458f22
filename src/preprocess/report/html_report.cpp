#include "preprocess/report/html_report.hpp"

#include "core/error.hpp"

namespace seqfuse::preprocess {

void write_fastp_html(const FastpReport& report, std::ostream& out) {
  if (report.read1_before == nullptr || report.read1_after == nullptr || report.counts == nullptr) {
    throw Error("fastp report: read statistics or filter counts missing");
  }
  out << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" << report.title
      << "</title></head><body></body></html>\n";
}

}  // namespace seqfuse::preprocess
