// seqfuse fastq-trim: fastp 0.23.2's trimming and filtering with its option
// names and defaults; output reads byte-identical to fastp's. The run lives
// in src/preprocess (trim_run.hpp).
//
// fastp owns some short names seqfuse uses elsewhere: here -q is
// --qualified_quality_phred, -h is --html, -t is --trim_tail1 and -w is the
// thread count; help is --help only and quiet is --quiet only.
#include <memory>
#include <string>

#include "cli/subcommand.hpp"
#include "core/quick_exit.hpp"
#include "core/report.hpp"
#include "preprocess/trim_options.hpp"
#include "preprocess/trim_run.hpp"

namespace seqfuse::cli {
namespace {

struct FastqTrimConfig {
  CommonOptions common;
  preprocess::TrimOptions trim;
  // Values whose absence means "follow another option" (read 1's, or the
  // shared window settings); turned into std::optional after parsing.
  int trim_front2 = 0, trim_tail2 = 0, max_len2 = 0;
  int cut_front_window = 4, cut_front_quality = 20, cut_tail_window = 4, cut_tail_quality = 20,
      cut_right_window = 4, cut_right_quality = 20;
};

}  // namespace

Subcommand add_fastq_trim(CLI::App& parent) {
  auto config = std::make_shared<FastqTrimConfig>();
  preprocess::TrimOptions& t = config->trim;
  CLI::App* app = parent.add_subcommand(
      "fastq-trim", "Adapter, quality, length, N and poly-G/X trimming and filtering (fastp)");
  app->set_help_flag("--help", "Print this help message and exit (-h is --html, as in fastp)");
  app->footer(
      "fastp 0.23.2's options, names and defaults; the reads written are byte-identical to\n"
      "fastp's, in input order whatever -w is. Reports: fastp.json and fastp.html in the\n"
      "working directory unless -j/-h name other files (-j '' -h '' write none).\n"
      "Here -q is --qualified_quality_phred and -h is --html, as in fastp: use --help and "
      "--quiet.\n"
      "--device auto trims on a GPU when there is one, unless an option the GPU engine lacks\n"
      "is given (UMIs, --fix_mgi_id, --filter_by_index, -D, --failed_out, --unpaired1/2,\n"
      "--overlapped_out): then on the CPU with a warning; --device gpu makes that an error.\n"
      "Examples:\n"
      "  seqfuse fastq-trim -i in.fq.gz -o out.fq.gz\n"
      "  seqfuse fastq-trim -i R1.fq.gz -I R2.fq.gz -o o1.fq.gz -O o2.fq.gz -w 4\n"
      "  seqfuse fastq-trim -i R1.fq -I R2.fq -o o1.fq -O o2.fq --detect_adapter_for_pe -c\n"
      "  zcat in.fq.gz | seqfuse fastq-trim --stdin --stdout -A -x > out.fq");
  // Input and output.
  app->add_option("-i,--in1", t.in1, "Read 1 input (FASTQ, plain or gzip)");
  app->add_option("-I,--in2", t.in2, "Read 2 input (paired-end)");
  app->add_option("-o,--out1", t.out1, "Read 1 output (gzip when the name ends in .gz)");
  app->add_option("-O,--out2", t.out2, "Read 2 output");
  app->add_option("--unpaired1", t.unpaired1, "Paired-end: read 1 passing while read 2 fails");
  app->add_option("--unpaired2", t.unpaired2,
                  "Paired-end: read 2 passing while read 1 fails (default: --unpaired1)");
  app->add_option("--failed_out", t.failed_out, "Reads that fail, tagged with the reason");
  app->add_option("--overlapped_out", t.overlapped_out,
                  "Paired-end: read 1 past an exact overlap (fastp's bytes, see docs)");
  app->add_flag("--fix_mgi_id", t.fix_mgi_id, "Write '@name/1' headers as '@name /1'");
  app->add_option("--filter_by_index1", t.filter_by_index1,
                  "Drop reads whose first name index is in this barcode list");
  app->add_option("--filter_by_index2", t.filter_by_index2,
                  "Drop pairs whose last name index is in this barcode list");
  app->add_option("--filter_by_index_threshold", t.filter_by_index_threshold,
                  "Mismatches allowed against a listed barcode")
      ->capture_default_str();
  app->add_flag("-U,--umi", t.umi, "Move UMIs into the read names");
  app->add_option("--umi_loc", t.umi_loc, "index1, index2, read1, read2, per_index or per_read");
  app->add_option("--umi_len", t.umi_len, "UMI length (read1, read2, per_read)")
      ->capture_default_str();
  app->add_option("--umi_prefix", t.umi_prefix, "Name tag ':PREFIX_UMI' instead of ':UMI'");
  app->add_option("--umi_skip", t.umi_skip, "Bases after the UMI dropped too")
      ->capture_default_str();
  app->add_option("-z,--compression", t.compression, "gzip level of .gz outputs, 1 to 9")
      ->capture_default_str();
  app->add_flag("--stdin", t.stdin_input, "Read 1 (or interleaved pairs) from standard input");
  app->add_flag("--stdout", t.stdout_output,
                "Passing reads to standard output (pairs interleaved), uncompressed");
  app->add_flag("--interleaved_in", t.interleaved_in, "-i holds read 1 and read 2 alternately");
  app->add_flag("-6,--phred64", t.phred64, "Input qualities are phred+64 (written as phred+33)");
  app->add_option("--reads_to_process", t.reads_to_process,
                  "Only the first N reads or pairs (0: all)")
      ->capture_default_str();
  app->add_flag("--dont_overwrite", t.dont_overwrite, "An output that exists is an error");
  // Adapters.
  app->add_flag("-A,--disable_adapter_trimming", t.disable_adapter_trimming, "No adapter trimming");
  app->add_option("-a,--adapter_sequence", t.adapter_sequence,
                  "Read 1 adapter (single-end: detected when not given)")
      ->capture_default_str();
  app->add_option("--adapter_sequence_r2", t.adapter_sequence_r2,
                  "Read 2 adapter (default: read 1's)")
      ->capture_default_str();
  app->add_option("--adapter_fasta", t.adapter_fasta, "Trim every adapter of this FASTA file");
  app->add_flag("--detect_adapter_for_pe", t.detect_adapter_for_pe,
                "Detect adapters in paired-end input too");
  // Fixed trims.
  app->add_option("-f,--trim_front1", t.trim_front1, "Bases cut from read 1's front")
      ->capture_default_str();
  app->add_option("-t,--trim_tail1", t.trim_tail1, "Bases cut from read 1's tail")
      ->capture_default_str();
  app->add_option("-b,--max_len1", t.max_len1, "Read 1 cut to at most this length (0: no limit)")
      ->capture_default_str();
  app->add_option("-F,--trim_front2", config->trim_front2, "Read 2's front (default: -f)");
  app->add_option("-T,--trim_tail2", config->trim_tail2, "Read 2's tail (default: -t)");
  app->add_option("-B,--max_len2", config->max_len2, "Read 2's maximum length (default: -b)");
  // Tails.
  app->add_flag("-g,--trim_poly_g", t.trim_poly_g,
                "Poly-G tail trimming (default: on for NextSeq/NovaSeq reads)");
  app->add_flag("-G,--disable_trim_poly_g", t.disable_trim_poly_g, "No poly-G trimming");
  app->add_option("--poly_g_min_len", t.poly_g_min_len, "Shortest poly-G tail")
      ->capture_default_str();
  app->add_flag("-x,--trim_poly_x", t.trim_poly_x, "Poly-X tail trimming");
  app->add_option("--poly_x_min_len", t.poly_x_min_len, "Shortest poly-X tail")
      ->capture_default_str();
  // Sliding windows.
  app->add_flag("-5,--cut_front", t.cut_front, "Cut low-quality windows from the front");
  app->add_flag("-3,--cut_tail", t.cut_tail, "Cut low-quality windows from the tail");
  app->add_flag("-r,--cut_right", t.cut_right, "Cut from the first low-quality window to the end");
  app->add_option("-W,--cut_window_size", t.cut_window_size, "Window size, 1 to 1000")
      ->capture_default_str();
  app->add_option("-M,--cut_mean_quality", t.cut_mean_quality, "Window mean quality, 1 to 30")
      ->capture_default_str();
  app->add_option("--cut_front_window_size", config->cut_front_window, "Default: -W");
  app->add_option("--cut_front_mean_quality", config->cut_front_quality, "Default: -M");
  app->add_option("--cut_tail_window_size", config->cut_tail_window, "Default: -W");
  app->add_option("--cut_tail_mean_quality", config->cut_tail_quality, "Default: -M");
  app->add_option("--cut_right_window_size", config->cut_right_window, "Default: -W");
  app->add_option("--cut_right_mean_quality", config->cut_right_quality, "Default: -M");
  // Filters.
  app->add_flag("-Q,--disable_quality_filtering", t.disable_quality_filtering, "No quality filter");
  app->add_option("-q,--qualified_quality_phred", t.qualified_quality_phred,
                  "A base is qualified at this phred quality or more")
      ->capture_default_str();
  app->add_option("-u,--unqualified_percent_limit", t.unqualified_percent_limit,
                  "Most unqualified bases allowed, in percent")
      ->capture_default_str();
  app->add_option("-n,--n_base_limit", t.n_base_limit, "Most N bases allowed")
      ->capture_default_str();
  app->add_option("-e,--average_qual", t.average_qual, "Least mean quality (0: no requirement)")
      ->capture_default_str();
  app->add_flag("-L,--disable_length_filtering", t.disable_length_filtering, "No length filter");
  app->add_option("-l,--length_required", t.length_required, "Shortest read kept")
      ->capture_default_str();
  app->add_option("--length_limit", t.length_limit, "Longest read kept (0: no limit)")
      ->capture_default_str();
  app->add_flag("-y,--low_complexity_filter", t.low_complexity_filter, "Drop low-complexity reads");
  app->add_option("-Y,--complexity_threshold", t.complexity_threshold,
                  "Least complexity, in percent")
      ->capture_default_str();
  // Pairs.
  app->add_flag("-c,--correction", t.correction, "Correct mismatches in overlapping pairs");
  app->add_option("--overlap_len_require", t.overlap_len_require, "Shortest overlap")
      ->capture_default_str();
  app->add_option("--overlap_diff_limit", t.overlap_diff_limit, "Most mismatches in an overlap")
      ->capture_default_str();
  app->add_option("--overlap_diff_percent_limit", t.overlap_diff_percent_limit,
                  "Most mismatches in an overlap, in percent")
      ->capture_default_str();
  // Reports.
  app->add_option("-j,--json", t.json, "fastp JSON report ('' for none)")->capture_default_str();
  app->add_option("-h,--html", t.html, "HTML report ('' for none)")->capture_default_str();
  app->add_option("-R,--report_title", t.report_title, "HTML report title")->capture_default_str();
  app->add_flag("-D,--dedup", t.dedup, "Drop reads (pairs) seen before; the first copy stays");
  app->add_option("--dup_calc_accuracy", t.dup_calc_accuracy,
                  "fastp's duplication accuracy level, 1 to 6 (default 3 with -D, else 1)");
  app->add_flag("--dont_eval_duplication", t.dont_eval_duplication,
                "No duplication estimate (saves its 512 MiB table)");
  // Workflow rules append extra arguments: a repeated -w takes the last.
  app->add_option("-w,--thread", t.threads,
                  "Worker threads (0: the CPUs this process may use, affinity and cgroup quota "
                  "honoured)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_device_option(*app, config->common);
  add_quiet_long_option(*app, config->common);
  return {app, [config, app] {
            preprocess::TrimOptions options = config->trim;
            const auto given = [&](const char* name) { return app->count(name) > 0; };
            if (given("--trim_front2")) options.trim_front2 = config->trim_front2;
            if (given("--trim_tail2")) options.trim_tail2 = config->trim_tail2;
            if (given("--max_len2")) options.max_len2 = config->max_len2;
            if (given("--cut_front_window_size"))
              options.cut_front_window_size = config->cut_front_window;
            if (given("--cut_front_mean_quality"))
              options.cut_front_mean_quality = config->cut_front_quality;
            if (given("--cut_tail_window_size"))
              options.cut_tail_window_size = config->cut_tail_window;
            if (given("--cut_tail_mean_quality"))
              options.cut_tail_mean_quality = config->cut_tail_quality;
            if (given("--cut_right_window_size"))
              options.cut_right_window_size = config->cut_right_window;
            if (given("--cut_right_mean_quality"))
              options.cut_right_mean_quality = config->cut_right_quality;
            preprocess::validate(options);
            options.command_line = command_line();
            const DeviceSpec::Kind device = parse_device_spec(config->common.device).kind;
            if (device != DeviceSpec::Kind::kCpu)
              options.choose_device = [common = config->common] { return choose_device(common); };
            options.gpu_required = device == DeviceSpec::Kind::kGpu;
            options.exits_after = kQuickExit;
            Reporter report("fastq-trim", config->common.quiet);
            (void)preprocess::run_fastq_trim(options, report);
            return 0;
          }};
}

}  // namespace seqfuse::cli
