#include "preprocess/report/json_report.hpp"

#include <locale>
#include <sstream>

#include "core/error.hpp"

namespace seqfuse::preprocess {
namespace {

// fastp writes std::endl; the text is built in a string stream and copied
// out once, so '\n' is enough here.
constexpr char kEol = '\n';

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

void write_totals(std::ostream& o, const ReadTotals& t, const ReadStats& read1,
                  const ReadStats* read2) {
  o << "\t\t\t\"total_reads\":" << t.reads << "," << kEol;
  o << "\t\t\t\"total_bases\":" << t.bases << "," << kEol;
  o << "\t\t\t\"q20_bases\":" << t.q20 << "," << kEol;
  o << "\t\t\t\"q30_bases\":" << t.q30 << "," << kEol;
  o << "\t\t\t\"q20_rate\":" << ratio(t.q20, t.bases) << "," << kEol;
  o << "\t\t\t\"q30_rate\":" << ratio(t.q30, t.bases) << "," << kEol;
  o << "\t\t\t\"read1_mean_length\":" << read1.mean_length() << "," << kEol;
  if (read2 != nullptr) o << "\t\t\t\"read2_mean_length\":" << read2->mean_length() << "," << kEol;
  o << "\t\t\t\"gc_content\":" << ratio(t.gc, t.bases) << kEol;
}

void write_summary(std::ostream& o, const FastpReport& r) {
  std::string sequencing = r.paired ? "paired end" : "single end";
  sequencing += " (" + std::to_string(r.read1_before->cycles()) + " cycles";
  if (r.paired) sequencing += " + " + std::to_string(r.read2_before->cycles()) + " cycles";
  sequencing += ")";

  o << "\t\"summary\": {" << kEol;
  o << "\t\t\"fastp_version\": \"" << r.version << "\"," << kEol;
  o << "\t\t\"sequencing\": \"" << sequencing << "\"," << kEol;
  o << "\t\t\"before_filtering\": {" << kEol;
  write_totals(o, totals_of(r.read1_before, r.read2_before), *r.read1_before, r.read2_before);
  o << "\t\t}," << kEol;
  o << "\t\t\"after_filtering\": {" << kEol;
  write_totals(o, totals_of(r.read1_after, r.read2_after), *r.read1_after, r.read2_after);
  o << "\t\t}" << kEol;
  o << "\t}," << kEol;
}

void write_filtering(std::ostream& o, const FastpReport& r) {
  const FilterCounts& c = *r.counts;
  o << "\t\"filtering_result\": {" << kEol;
  o << "\t\t\"passed_filter_reads\": " << c.count(ReadFate::passed) << "," << kEol;
  if (r.correction) {
    std::uint64_t corrected_bases = 0;
    for (const std::uint64_t n : c.corrections) corrected_bases += n;
    o << "\t\t\"corrected_reads\": " << c.corrected_reads << "," << kEol;
    o << "\t\t\"corrected_bases\": " << corrected_bases << "," << kEol;
  }
  o << "\t\t\"low_quality_reads\": " << c.count(ReadFate::low_quality) << "," << kEol;
  o << "\t\t\"too_many_N_reads\": " << c.count(ReadFate::too_many_n) << "," << kEol;
  if (r.complexity_filter) {
    o << "\t\t\"low_complexity_reads\": " << c.count(ReadFate::low_complexity) << "," << kEol;
  }
  o << "\t\t\"too_short_reads\": " << c.count(ReadFate::too_short) << "," << kEol;
  o << "\t\t\"too_long_reads\": " << c.count(ReadFate::too_long) << kEol;
  o << "\t}," << kEol;
}

void write_insert_sizes(std::ostream& o, const FastpReport& r) {
  const std::vector<std::uint64_t>& h = r.counts->insert_sizes;
  const std::size_t max = h.empty() ? 0 : h.size() - 1;
  o << "\t\"insert_size\": {" << kEol;
  o << "\t\t\"peak\": " << r.insert_size_peak.value_or(insert_size_peak(h)) << "," << kEol;
  o << "\t\t\"unknown\": " << (h.empty() ? 0 : h[max]) << "," << kEol;
  o << "\t\t\"histogram\": [";
  for (std::size_t d = 0; d < max; ++d) o << (d == 0 ? "" : ",") << h[d];
  o << "]" << kEol;
  o << "\t}," << kEol;
}

// The listed sequences, then "others".
void write_adapter_counts(std::ostream& o, const AdapterListing& listing) {
  bool first = true;
  for (const auto& [sequence, n] : listing.listed) {
    o << (first ? "" : ", ") << "\"" << sequence << "\":" << n;
    first = false;
  }
  if (listing.others > 0) o << (first ? "" : ", ") << "\"others\":" << listing.others;
}

void write_adapters(std::ostream& o, const FastpReport& r) {
  const FilterCounts& c = *r.counts;
  o << "\t\"adapter_cutting\": {" << kEol;
  o << "\t\t\"adapter_trimmed_reads\": " << c.adapter_trimmed_reads << "," << kEol;
  o << "\t\t\"adapter_trimmed_bases\": " << c.adapter_trimmed_bases << "," << kEol;
  o << "\t\t\"read1_adapter_sequence\": \"" << r.adapter1 << "\"," << kEol;
  if (r.paired) o << "\t\t\"read2_adapter_sequence\": \"" << r.adapter2 << "\"," << kEol;
  o << "\t\t\"read1_adapter_counts\": {";
  write_adapter_counts(o, r.adapters1 ? *r.adapters1 : list_adapters(c.adapters_read1));
  o << "}" << (r.paired ? "," : "") << kEol;
  if (r.paired) {
    o << "\t\t\"read2_adapter_counts\": {";
    write_adapter_counts(o, r.adapters2 ? *r.adapters2 : list_adapters(c.adapters_read2));
    o << "}" << kEol;
  }
  o << "\t}," << kEol;
}

void write_base_counts(std::ostream& o, const char* key, const std::array<std::uint64_t, 4>& n) {
  // FilterCounts keeps A, C, G, T; fastp prints A, T, C, G.
  o << "\t\t\"total_" << key << "\": " << n[0] + n[1] + n[2] + n[3] << "," << kEol;
  o << "\t\t\"" << key << "\":{\"A\": " << n[0] << ", \"T\": " << n[3] << ", \"C\": " << n[1]
    << ", \"G\": " << n[2] << "}";
}

void write_polyx(std::ostream& o, const FilterCounts& c) {
  o << "\t\"polyx_trimming\": \t{" << kEol;
  write_base_counts(o, "polyx_trimmed_reads", c.polyx_reads);
  o << "," << kEol;
  write_base_counts(o, "polyx_trimmed_bases", c.polyx_bases);
  o << kEol << "\t}," << kEol;
}

void write_curve(std::ostream& o, const std::vector<double>& curve) {
  for (std::size_t c = 0; c < curve.size(); ++c) o << (c == 0 ? "" : ",") << curve[c];
}

void write_read_stats(std::ostream& o, const char* name, const ReadStats& s) {
  o << "\t\"" << name << "\": {" << kEol;
  o << "\t\t\"total_reads\": " << s.reads() << "," << kEol;
  o << "\t\t\"total_bases\": " << s.bases() << "," << kEol;
  o << "\t\t\"q20_bases\": " << s.q20_bases() << "," << kEol;
  o << "\t\t\"q30_bases\": " << s.q30_bases() << "," << kEol;
  o << "\t\t\"total_cycles\": " << s.cycles() << "," << kEol;

  o << "\t\t\"quality_curves\": {" << kEol;
  for (const char base : {'A', 'T', 'C', 'G'}) {
    o << "\t\t\t\"" << base << "\":[";
    write_curve(o, s.quality_curve(base));
    o << "]," << kEol;
  }
  o << "\t\t\t\"mean\":[";
  write_curve(o, s.mean_quality_curve());
  o << "]" << kEol;
  o << "\t\t}," << kEol;

  o << "\t\t\"content_curves\": {" << kEol;
  for (const char base : {'A', 'T', 'C', 'G', 'N'}) {
    o << "\t\t\t\"" << base << "\":[";
    write_curve(o, s.content_curve(base));
    o << "]," << kEol;
  }
  o << "\t\t\t\"GC\":[";
  write_curve(o, s.gc_content_curve());
  o << "]" << kEol;
  o << "\t\t}," << kEol;

  // 64 lines of 16 (one line per first three letters), every entry indented,
  // fastp's layout.
  o << "\t\t\"kmer_count\": {" << kEol;
  const auto& kmers = s.kmer_counts();
  for (std::size_t i = 0; i < kStatsKmers; ++i) {
    o << "\t\t\t\"" << ReadStats::kmer_name(i) << "\":" << kmers[i];
    if (i + 1 == kStatsKmers) {
      o << kEol;
    } else {
      o << ",";
      if (i % 16 == 15) o << kEol;
    }
  }
  o << "\t\t}," << kEol;

  // Overrepresentation analysis (-p) is not offered; fastp writes the key,
  // empty, when it is off.
  o << "\t\t\"overrepresented_sequences\": {" << kEol;
  o << "\t\t}" << kEol;
  o << "\t}," << kEol;
}

// fastp's `command` is printed raw; escape what would break the JSON.
std::string json_escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

int insert_size_peak(const std::vector<std::uint64_t>& histogram) {
  int peak = 0;
  std::uint64_t best = 0;
  bool any = false;
  for (std::size_t i = 0; i + 1 < histogram.size(); ++i) {
    if (!any || histogram[i] > best) {
      peak = static_cast<int>(i);
      best = histogram[i];
      any = true;
    }
  }
  return peak;
}

void write_fastp_json(const FastpReport& r, std::ostream& out) {
  if (r.read1_before == nullptr || r.read1_after == nullptr || r.counts == nullptr ||
      (r.paired && (r.read2_before == nullptr || r.read2_after == nullptr))) {
    throw Error("fastp report: read statistics or filter counts missing");
  }
  // Default stream state (6 significant digits, "C" locale), as fastp's
  // ofstream prints its doubles, whatever the caller's stream is set to.
  std::ostringstream o;
  o.imbue(std::locale::classic());

  o << "{" << kEol;
  write_summary(o, r);
  write_filtering(o, r);
  if (r.duplication_rate) {
    o << "\t\"duplication\": {" << kEol;
    o << "\t\t\"rate\": " << *r.duplication_rate << kEol;
    o << "\t}," << kEol;
  }
  if (r.paired) write_insert_sizes(o, r);
  if (r.adapter_cutting) write_adapters(o, r);
  if (r.polyx_trimming) write_polyx(o, *r.counts);
  write_read_stats(o, "read1_before_filtering", *r.read1_before);
  if (r.paired) write_read_stats(o, "read2_before_filtering", *r.read2_before);
  write_read_stats(o, "read1_after_filtering", *r.read1_after);
  if (r.paired) write_read_stats(o, "read2_after_filtering", *r.read2_after);
  o << "\t\"command\": \"" << json_escaped(r.command) << "\"" << kEol;
  o << "}";
  out << o.str();
}

}  // namespace seqfuse::preprocess
