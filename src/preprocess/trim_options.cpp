#include "preprocess/trim_options.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"

namespace seqfuse::preprocess {
namespace {

bool is_acgt(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T'; });
}

}  // namespace

void validate(const TrimOptions& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  const bool paired = is_paired(c);
  if (c.in1.empty() && !c.stdin_input) add("read 1 input is needed: -i FILE, or --stdin");
  if (!c.in1.empty() && c.stdin_input) add("--stdin and -i are exclusive");
  if (c.in1.empty() && !c.in2.empty()) add("-I is given but -i is not");
  if (!c.in2.empty() && c.interleaved_in) add("-I is not allowed with --interleaved_in");
  if (!paired && !c.out2.empty()) add("-O needs paired input (-I or --interleaved_in)");
  if (paired && !c.stdout_output && c.out1.empty() != c.out2.empty())
    add("paired input needs both -o and -O (or neither)");
  if (c.stdout_output && (!c.out1.empty() || !c.out2.empty()))
    add("--stdout and -o/-O are exclusive");
  if (!c.out1.empty() && c.out1 == c.out2) add("-o and -O must differ");
  const auto clash = [&](const std::string& a, const char* an, const std::string& b,
                         const char* bn) {
    if (!a.empty() && a == b) add(std::string(an) + " and " + bn + " must differ");
  };
  clash(c.unpaired1, "--unpaired1", c.out1, "-o");
  clash(c.unpaired1, "--unpaired1", c.out2, "-O");
  clash(c.unpaired2, "--unpaired2", c.out1, "-o");
  clash(c.unpaired2, "--unpaired2", c.out2, "-O");
  clash(c.failed_out, "--failed_out", c.out1, "-o");
  clash(c.failed_out, "--failed_out", c.out2, "-O");
  clash(c.failed_out, "--failed_out", c.unpaired1, "--unpaired1");
  clash(c.failed_out, "--failed_out", c.unpaired2, "--unpaired2");
  clash(c.overlapped_out, "--overlapped_out", c.out1, "-o");
  clash(c.overlapped_out, "--overlapped_out", c.out2, "-O");
  clash(c.overlapped_out, "--overlapped_out", c.failed_out, "--failed_out");
  if (c.compression < 1 || c.compression > 9) add("-z/--compression must be 1 to 9");
  if (c.reads_to_process < 0) add("--reads_to_process must be 0 (all) or more");
  if (c.dup_calc_accuracy < 0) add("--dup_calc_accuracy must be 1 to 6");
  if (c.filter_by_index_threshold < 0) add("--filter_by_index_threshold must be 0 or more");
  if (c.threads < 0) add("-w/--thread must be 0 (all hardware threads) or more");
  if (c.trim_front1 < 0 || c.trim_front1 > 30) add("-f/--trim_front1 must be 0 to 30");
  if (c.trim_tail1 < 0 || c.trim_tail1 > 100) add("-t/--trim_tail1 must be 0 to 100");
  if (c.trim_front2 && (*c.trim_front2 < 0 || *c.trim_front2 > 30))
    add("-F/--trim_front2 must be 0 to 30");
  if (c.trim_tail2 && (*c.trim_tail2 < 0 || *c.trim_tail2 > 100))
    add("-T/--trim_tail2 must be 0 to 100");
  if (c.max_len1 < 0 || (c.max_len2 && *c.max_len2 < 0)) add("-b/-B must be 0 or more");
  if (c.trim_poly_g && c.disable_trim_poly_g) add("-g and -G are exclusive");
  if (c.poly_g_min_len < 1) add("--poly_g_min_len must be at least 1");
  if (c.poly_x_min_len < 1) add("--poly_x_min_len must be at least 1");
  if (c.qualified_quality_phred < 0 || c.qualified_quality_phred > 93)
    add("-q/--qualified_quality_phred must be 0 to 93");
  if (c.average_qual < 0 || c.average_qual > 93) add("-e/--average_qual must be 0 to 93");
  if (c.unqualified_percent_limit < 0 || c.unqualified_percent_limit > 100)
    add("-u/--unqualified_percent_limit must be 0 to 100");
  if (c.n_base_limit < 0 || c.n_base_limit > 50) add("-n/--n_base_limit must be 0 to 50");
  if (c.length_required < 0) add("-l/--length_required must be 0 or more");
  if (c.length_limit < 0) add("--length_limit must be 0 or more");
  if (c.overlap_diff_percent_limit < 0 || c.overlap_diff_percent_limit > 100)
    add("--overlap_diff_percent_limit must be 0 to 100");
  if (c.overlap_len_require < 0 || c.overlap_diff_limit < 0)
    add("--overlap_len_require and --overlap_diff_limit must be 0 or more");
  if (c.cut_front || c.cut_tail || c.cut_right) {
    const auto window = [&](int w, const char* name) {
      if (w < 1 || w > 1000) add(std::string(name) + " must be 1 to 1000");
    };
    const auto quality = [&](int q, const char* name) {
      if (q < 1 || q > 30) add(std::string(name) + " must be 1 to 30");
    };
    window(c.cut_window_size, "-W/--cut_window_size");
    quality(c.cut_mean_quality, "-M/--cut_mean_quality");
    window(c.cut_front_window_size.value_or(c.cut_window_size), "--cut_front_window_size");
    quality(c.cut_front_mean_quality.value_or(c.cut_mean_quality), "--cut_front_mean_quality");
    window(c.cut_tail_window_size.value_or(c.cut_window_size), "--cut_tail_window_size");
    quality(c.cut_tail_mean_quality.value_or(c.cut_mean_quality), "--cut_tail_mean_quality");
    window(c.cut_right_window_size.value_or(c.cut_window_size), "--cut_right_window_size");
    quality(c.cut_right_mean_quality.value_or(c.cut_mean_quality), "--cut_right_mean_quality");
  }
  for (const auto& [sequence, name] : {std::pair{c.adapter_sequence, "-a/--adapter_sequence"},
                                       std::pair{c.adapter_sequence_r2, "--adapter_sequence_r2"}}) {
    if (sequence == "auto" || sequence.empty()) continue;
    if (sequence.size() <= 3) add(std::string(name) + " must be longer than 3 bases");
    if (!is_acgt(sequence)) add(std::string(name) + " may hold only A, C, G and T");
  }
  if (c.umi) {  // fastp's checks
    const UmiLocation where = parse_umi_location(c.umi_loc);
    if (where == UmiLocation::none)
      add("-U/--umi needs --umi_loc index1, index2, read1, read2, per_index or per_read");
    if (!paired && (where == UmiLocation::index2 || where == UmiLocation::read2))
      add("--umi_loc " + c.umi_loc + " needs paired input");
    const bool in_read = where == UmiLocation::read1 || where == UmiLocation::read2 ||
                         where == UmiLocation::per_read;
    if (in_read && (c.umi_len < 1 || c.umi_len > 100)) add("--umi_len must be 1 to 100");
    if (in_read && (c.umi_skip < 0 || c.umi_skip > 100)) add("--umi_skip must be 0 to 100");
    if (!in_read && where != UmiLocation::none && (c.umi_len > 0 || c.umi_skip > 0))
      add("--umi_len and --umi_skip are for --umi_loc read1, read2 or per_read");
    if (c.umi_prefix.size() >= 10) add("--umi_prefix must be shorter than 10");
    if (!std::all_of(c.umi_prefix.begin(), c.umi_prefix.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; }))
      add("--umi_prefix may hold only letters and digits");
  }
  if (!problems.empty()) throw UsageError(problems);
}

TrimSettings resolve(const TrimOptions& o) {
  TrimSettings s;
  s.paired = is_paired(o);
  s.front[0] = o.trim_front1;
  s.tail[0] = o.trim_tail1;
  s.max_len[0] = o.max_len1;
  s.front[1] = o.trim_front2.value_or(o.trim_front1);
  s.tail[1] = o.trim_tail2.value_or(o.trim_tail1);
  s.max_len[1] = o.max_len2.value_or(o.max_len1);
  s.cut.front = o.cut_front;
  s.cut.tail = o.cut_tail;
  s.cut.right = o.cut_right;
  s.cut.front_window = o.cut_front_window_size.value_or(o.cut_window_size);
  s.cut.front_quality = o.cut_front_mean_quality.value_or(o.cut_mean_quality);
  s.cut.tail_window = o.cut_tail_window_size.value_or(o.cut_window_size);
  s.cut.tail_quality = o.cut_tail_mean_quality.value_or(o.cut_mean_quality);
  s.cut.right_window = o.cut_right_window_size.value_or(o.cut_window_size);
  s.cut.right_quality = o.cut_right_mean_quality.value_or(o.cut_mean_quality);
  s.filter.quality = !o.disable_quality_filtering;
  s.filter.qualified_quality = static_cast<char>(33 + o.qualified_quality_phred);
  s.filter.unqualified_percent = o.unqualified_percent_limit;
  s.filter.average_quality = o.average_qual;
  s.filter.n_base_limit = o.n_base_limit;
  s.filter.length = !o.disable_length_filtering;
  s.filter.length_required = o.length_required;
  s.filter.length_limit = o.length_limit;
  s.filter.complexity = o.low_complexity_filter;
  s.filter.complexity_percent = std::clamp(o.complexity_threshold, 0, 100);
  s.adapter_trimming = !o.disable_adapter_trimming;
  s.poly_g = o.trim_poly_g;
  s.poly_g_min_len = o.poly_g_min_len;
  s.poly_x = o.trim_poly_x;
  s.poly_x_min_len = o.poly_x_min_len;
  // fastp ignores -c for single-end data (with a warning).
  s.correction = o.correction && s.paired;
  s.overlap_len_require = o.overlap_len_require;
  s.overlap_diff_limit = o.overlap_diff_limit;
  s.overlap_diff_percent_limit = o.overlap_diff_percent_limit;
  s.fix_mgi_id = o.fix_mgi_id;
  if (o.umi) {
    s.umi = parse_umi_location(o.umi_loc);
    s.umi_len = o.umi_len;
    s.umi_skip = o.umi_skip;
    s.umi_prefix = o.umi_prefix;
  }
  return s;
}

}  // namespace seqfuse::preprocess
