// What a `seqfuse fastq-trim` run is asked to do: fastp 0.23.2's options with
// its names and defaults (src/cli/cli_fastq_trim.cpp binds CLI11 to these
// fields), plus what the CLI resolves for it. resolve() turns the "follow
// read 1 unless given" rules into plain values, as fastp's main() does.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/device_choice.hpp"
#include "gpu/preprocess/read_filter.hpp"
#include "gpu/preprocess/read_trim.hpp"
#include "preprocess/umi.hpp"

namespace seqfuse::preprocess {

struct TrimOptions {
  // Input and output (fastp's -i -I -o -O --stdin --stdout ...).
  std::string in1, in2, out1, out2;
  bool stdin_input = false;
  bool stdout_output = false;
  bool interleaved_in = false;
  std::string unpaired1, unpaired2, failed_out;
  std::string overlapped_out;  // paired: read 1's part past an exact overlap (fastp's bytes)
  bool fix_mgi_id = false;     // "@name/1" headers written as "@name /1"
  // UMIs (-U): where they are (index1 index2 read1 read2 per_index per_read),
  // their length and the bases after them dropped (read locations), a prefix.
  // Index filters: barcode lists (one a line) for the first and last index
  // in the read names, with this many mismatches allowed.
  std::string filter_by_index1, filter_by_index2;
  int filter_by_index_threshold = 0;
  bool umi = false;
  std::string umi_loc, umi_prefix;
  int umi_len = 0, umi_skip = 0;
  int compression = 4;             // -z, gzip level of .gz outputs
  bool phred64 = false;            // -6: qualities in phred+64, written as phred+33
  long long reads_to_process = 0;  // 0: all; else the first N reads (pairs)
  bool dont_overwrite = false;     // an existing output is an error
  // Adapters.
  bool disable_adapter_trimming = false;  // -A
  std::string adapter_sequence = "auto";  // -a
  std::string adapter_sequence_r2 = "auto";
  std::string adapter_fasta;
  bool detect_adapter_for_pe = false;
  // Fixed trims; read 2's follow read 1's unless given.
  int trim_front1 = 0, trim_tail1 = 0, max_len1 = 0;
  std::optional<int> trim_front2, trim_tail2, max_len2;
  // Poly-G / poly-X tails. Poly-G: unset means fastp's automatic choice (on
  // for two-colour instruments, read from the first read's name).
  bool trim_poly_g = false, disable_trim_poly_g = false;
  int poly_g_min_len = 10;
  bool trim_poly_x = false;
  int poly_x_min_len = 10;
  // Sliding-window cutting; the per-side values follow the shared ones.
  bool cut_front = false, cut_tail = false, cut_right = false;
  int cut_window_size = 4, cut_mean_quality = 20;
  std::optional<int> cut_front_window_size, cut_front_mean_quality;
  std::optional<int> cut_tail_window_size, cut_tail_mean_quality;
  std::optional<int> cut_right_window_size, cut_right_mean_quality;
  // Filters.
  bool disable_quality_filtering = false;
  int qualified_quality_phred = 15, unqualified_percent_limit = 40, n_base_limit = 5;
  int average_qual = 0;
  bool disable_length_filtering = false;
  int length_required = 15, length_limit = 0;
  bool low_complexity_filter = false;
  int complexity_threshold = 30;
  // Pairs: overlap analysis and base correction.
  bool correction = false;
  int overlap_len_require = 30, overlap_diff_limit = 5, overlap_diff_percent_limit = 20;
  // Reports: fastp's defaults, written in the working directory.
  std::string json = "fastp.json", html = "fastp.html";
  std::string report_title = "fastp report";
  bool dont_eval_duplication = false;
  bool dedup = false;         // -D: drop reads (pairs) seen before
  int dup_calc_accuracy = 0;  // 1 to 6; 0: fastp's default, 3 with -D, else 1
  int threads = 3;            // -w, fastp's default 3
  // Resolved by the CLI.
  std::string command_line;
  // --device: picks the device (null: the CPU); gpu_required for --device gpu.
  std::function<DeviceChoice()> choose_device;
  bool gpu_required = false;
  // The process exits right after the run (core/quick_exit.hpp): the mapped
  // inputs, chunk and output buffers, the duplication array and the engine
  // are then left to the OS instead of being freed piece by piece (0.15-0.2
  // s of a 1.3 s GPU run on 4 M pairs, run 31).
  bool exits_after = false;
};

// Plain values for the engine, after resolve().
struct TrimSettings {
  bool paired = false;
  int front[2] = {0, 0}, tail[2] = {0, 0}, max_len[2] = {0, 0};
  gpu::preprocess::QualityCut cut;
  gpu::preprocess::ReadFilter filter;
  bool adapter_trimming = true;
  bool poly_g = false;  // set after the evaluation pass (two-colour check)
  int poly_g_min_len = 10;
  bool poly_x = false;
  int poly_x_min_len = 10;
  bool correction = false;
  int overlap_len_require = 30, overlap_diff_limit = 5, overlap_diff_percent_limit = 20;
  bool fix_mgi_id = false;
  UmiLocation umi = UmiLocation::none;
  int umi_len = 0, umi_skip = 0;
  std::string umi_prefix;
};

// Throws UsageError naming every problem with the values at once (fastp's
// Options::validate ranges, plus seqfuse's stricter I/O rules).
void validate(const TrimOptions& options);

// The values the engine uses; poly_g only when forced (-g).
[[nodiscard]] TrimSettings resolve(const TrimOptions& options);

[[nodiscard]] inline bool is_paired(const TrimOptions& o) {
  return !o.in2.empty() || o.interleaved_in;
}

}  // namespace seqfuse::preprocess
