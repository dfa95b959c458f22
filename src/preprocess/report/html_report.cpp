#include "preprocess/report/html_report.hpp"

#include <iomanip>
#include <locale>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/version.hpp"
#include "preprocess/report/svg_chart.hpp"

namespace seqfuse::preprocess {
namespace {

// Inline style only: the page opens offline and from a mail attachment.
constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 1.5em auto; max-width: 960px; color: #222; }
h1 { font-size: 1.5em; border-bottom: 2px solid #36c; padding-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; color: #36c; }
h3 { font-size: 1em; margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.4em 0; }
td, th { padding: 0.2em 0.9em; border-bottom: 1px solid #ddd; text-align: left; }
th { background: #eef2fa; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
svg.chart { width: 100%; max-width: 760px; height: auto; display: block; }
.note { color: #666; font-size: 0.9em; }
code { word-break: break-all; }
</style>
)";

std::string fixed(double v, int decimals) {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  s << std::fixed << std::setprecision(decimals) << v;
  return s.str();
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0
             ? "0.00%"
             : fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 2) + "%";
}

// 1234567 -> "1,234,567". Built forwards (GCC 12 warns falsely on
// string::insert here).
std::string grouped(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void row(std::ostream& out, const std::string& key, const std::string& value) {
  out << "<tr><td>" << html_escaped(key) << "</td><td class='n'>" << html_escaped(value)
      << "</td></tr>\n";
}

void count_row(std::ostream& out, const std::string& key, std::uint64_t n, std::uint64_t whole) {
  row(out, key, grouped(n) + " (" + percent(n, whole) + ")");
}

void totals_table(std::ostream& out, const ReadTotals& t) {
  out << "<table>\n";
  row(out, "total reads", grouped(t.reads));
  row(out, "total bases", grouped(t.bases));
  count_row(out, "Q20 bases", t.q20, t.bases);
  count_row(out, "Q30 bases", t.q30, t.bases);
  row(out, "GC content", percent(t.gc, t.bases));
  out << "</table>\n";
}

void write_summary(std::ostream& out, const FastpReport& r) {
  std::string sequencing = r.paired ? "paired end" : "single end";
  sequencing += " (" + std::to_string(r.read1_before->cycles()) + " cycles";
  if (r.paired) sequencing += " + " + std::to_string(r.read2_before->cycles()) + " cycles";
  sequencing += ")";
  auto lengths = [&](const ReadStats* a, const ReadStats* b) {
    std::string text = std::to_string(a->mean_length()) + " bp";
    if (b != nullptr) text += ", " + std::to_string(b->mean_length()) + " bp";
    return text;
  };

  out << "<h2 id='summary'>Summary</h2>\n<h3>General</h3>\n<table>\n";
  row(out, "program",
      std::string("seqfuse ") + kVersion + " fastq-trim (fastp " + r.version + " report format)");
  row(out, "sequencing", sequencing);
  row(out, "mean length before filtering", lengths(r.read1_before, r.read2_before));
  row(out, "mean length after filtering", lengths(r.read1_after, r.read2_after));
  if (r.duplication_rate) row(out, "duplication rate", fixed(*r.duplication_rate * 100, 4) + "%");
  if (r.paired) {
    row(out, "insert size peak",
        std::to_string(r.insert_size_peak.value_or(insert_size_peak(r.counts->insert_sizes))));
  }
  if (r.adapter_cutting) {
    row(out, "read 1 adapter", r.adapter1);
    if (r.paired) row(out, "read 2 adapter", r.adapter2);
  }
  out << "</table>\n<h3>Before filtering</h3>\n";
  totals_table(out, totals_of(r.read1_before, r.read2_before));
  out << "<h3>After filtering</h3>\n";
  totals_table(out, totals_of(r.read1_after, r.read2_after));
}

void write_filtering(std::ostream& out, const FastpReport& r) {
  const FilterCounts& c = *r.counts;
  std::uint64_t total = 0;
  for (const std::uint64_t n : c.reads) total += n;
  out << "<h2 id='filtering'>Filtering result</h2>\n<table>\n";
  count_row(out, "reads passed filters", c.count(ReadFate::passed), total);
  if (r.correction) {
    std::uint64_t corrected_bases = 0;
    for (const std::uint64_t n : c.corrections) corrected_bases += n;
    count_row(out, "reads corrected", c.corrected_reads, total);
    row(out, "bases corrected", grouped(corrected_bases));
  }
  count_row(out, "reads with low quality", c.count(ReadFate::low_quality), total);
  count_row(out, "reads with too many N", c.count(ReadFate::too_many_n), total);
  if (r.complexity_filter) {
    count_row(out, "reads with low complexity", c.count(ReadFate::low_complexity), total);
  }
  count_row(out, "reads too short", c.count(ReadFate::too_short), total);
  count_row(out, "reads too long", c.count(ReadFate::too_long), total);
  if (c.count(ReadFate::poly_x) != 0 || c.count(ReadFate::overlap) != 0) {
    count_row(out, "reads failing poly-X or overlap checks",
              c.count(ReadFate::poly_x) + c.count(ReadFate::overlap), total);
  }
  out << "</table>\n";
}

// As fastp's page: the listed sequences, then one row for the rest ("all
// adapter sequences" when none is listed).
void adapter_table(std::ostream& out, const std::string& heading, const AdapterListing& listing) {
  out << "<h3>" << html_escaped(heading) << "</h3>\n";
  if (listing.total == 0) {
    out << "<p class='note'>none trimmed</p>\n";
    return;
  }
  const auto occurrences = [&](std::uint64_t n) {
    return "<td class='n'>" + grouped(n) + " (" + percent(n, listing.total) + ")</td></tr>\n";
  };
  out << "<table>\n<tr><th>sequence</th><th>occurrences</th></tr>\n";
  for (const auto& [sequence, n] : listing.listed)
    out << "<tr><td><code>" << html_escaped(sequence) << "</code></td>" << occurrences(n);
  if (listing.others > 0)
    out << "<tr><td>" << (listing.listed.empty() ? "all" : "other") << " adapter sequences</td>"
        << occurrences(listing.others);
  out << "</table>\n";
}

void write_adapters(std::ostream& out, const FastpReport& r) {
  const FilterCounts& c = *r.counts;
  out << "<h2 id='adapters'>Adapters</h2>\n<table>\n";
  row(out, "reads with adapter trimmed", grouped(c.adapter_trimmed_reads));
  row(out, "bases trimmed as adapter", grouped(c.adapter_trimmed_bases));
  row(out, "read 1 adapter", r.adapter1);
  if (r.paired) row(out, "read 2 adapter", r.adapter2);
  out << "</table>\n";
  adapter_table(out, "Read 1: adapter sequences trimmed",
                r.adapters1 ? *r.adapters1 : list_adapters(c.adapters_read1));
  if (r.paired)
    adapter_table(out, "Read 2: adapter sequences trimmed",
                  r.adapters2 ? *r.adapters2 : list_adapters(c.adapters_read2));
}

void write_polyx(std::ostream& out, const FilterCounts& c) {
  static constexpr const char* kBases[4] = {"A", "C", "G", "T"};  // FilterCounts' order
  out << "<h2 id='polyx'>Poly-X trimming</h2>\n<table>\n"
      << "<tr><th>base</th><th>reads</th><th>bases</th></tr>\n";
  for (std::size_t b = 0; b < 4; ++b) {
    out << "<tr><td>poly-" << kBases[b] << "</td><td class='n'>" << grouped(c.polyx_reads[b])
        << "</td><td class='n'>" << grouped(c.polyx_bases[b]) << "</td></tr>\n";
  }
  out << "</table>\n";
}

void write_insert_sizes(std::ostream& out, const FastpReport& r) {
  const std::vector<std::uint64_t>& h = r.counts->insert_sizes;
  const std::size_t max = h.empty() ? 0 : h.size() - 1;
  std::uint64_t known = 0;
  for (std::size_t i = 0; i < max; ++i) known += h[i];
  const std::uint64_t unknown = h.empty() ? 0 : h[max];
  out << "<h2 id='insert-size'>Insert size</h2>\n<p>peak "
      << r.insert_size_peak.value_or(insert_size_peak(h)) << "; "
      << percent(unknown, known + unknown)
      << " of pairs have no overlap and an unknown insert size (not drawn).</p>\n";
  write_svg_bar_chart(out,
                      std::vector<std::uint64_t>(h.begin(), h.begin() + static_cast<long>(max)),
                      {"insert size (bp)", "read pairs", 0, 1}, "#3366cc");
}

// Colours per letter, the same in every chart.
constexpr const char* kColorA = "#8c8c00";
constexpr const char* kColorT = "#8c008c";
constexpr const char* kColorC = "#00a651";
constexpr const char* kColorG = "#1f4fd6";
constexpr const char* kColorN = "#e02020";
constexpr const char* kColorAll = "#202020";

void write_read_curves(std::ostream& out, const std::string& title, const ReadStats& s) {
  out << "<h3>" << html_escaped(title) << ": quality per cycle</h3>\n";
  write_svg_line_chart(out,
                       {{"A", kColorA, s.quality_curve('A')},
                        {"T", kColorT, s.quality_curve('T')},
                        {"C", kColorC, s.quality_curve('C')},
                        {"G", kColorG, s.quality_curve('G')},
                        {"mean", kColorAll, s.mean_quality_curve()}},
                       {"cycle", "mean quality (phred)", 0, 41});
  const std::uint64_t bases = s.bases();
  auto label = [&](const char* name, std::uint64_t n) {
    return std::string(name) + " " + percent(n, bases);
  };
  out << "<h3>" << html_escaped(title) << ": base content per cycle</h3>\n";
  write_svg_line_chart(out,
                       {{label("A", s.base_count('A')), kColorA, s.content_curve('A')},
                        {label("T", s.base_count('T')), kColorT, s.content_curve('T')},
                        {label("C", s.base_count('C')), kColorC, s.content_curve('C')},
                        {label("G", s.base_count('G')), kColorG, s.content_curve('G')},
                        {label("N", s.base_count('N')), kColorN, s.content_curve('N')},
                        {label("GC", s.gc_bases()), kColorAll, s.gc_content_curve()}},
                       {"cycle", "share of bases", 0, 0.5});
}

}  // namespace

void write_fastp_html(const FastpReport& r, std::ostream& out) {
  if (r.read1_before == nullptr || r.read1_after == nullptr || r.counts == nullptr ||
      (r.paired && (r.read2_before == nullptr || r.read2_after == nullptr))) {
    throw Error("fastp report: read statistics or filter counts missing");
  }
  std::ostringstream o;
  o.imbue(std::locale::classic());
  o << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n<title>"
    << html_escaped(r.title) << "</title>\n"
    << kStyle << "</head>\n<body>\n<h1>" << html_escaped(r.title) << "</h1>\n";
  write_summary(o, r);
  write_filtering(o, r);
  if (r.duplication_rate) {
    o << "<h2 id='duplication'>Duplication</h2>\n<p>duplication rate "
      << fixed(*r.duplication_rate * 100, 4) << "%"
      << (r.paired ? "" : " (may be overestimated: single-end reads)") << "</p>\n";
  }
  if (r.paired) write_insert_sizes(o, r);
  if (r.adapter_cutting) write_adapters(o, r);
  if (r.polyx_trimming) write_polyx(o, *r.counts);
  o << "<h2 id='curves'>Per-cycle quality and base content</h2>\n";
  write_read_curves(o, "Read 1 before filtering", *r.read1_before);
  write_read_curves(o, "Read 1 after filtering", *r.read1_after);
  if (r.paired) {
    write_read_curves(o, "Read 2 before filtering", *r.read2_before);
    write_read_curves(o, "Read 2 after filtering", *r.read2_after);
  }
  o << "<h2 id='command'>Command</h2>\n<p><code>" << html_escaped(r.command) << "</code></p>\n";
  o << "</body>\n</html>\n";
  out << o.str();
}

}  // namespace seqfuse::preprocess
