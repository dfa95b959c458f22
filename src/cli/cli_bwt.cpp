// seqfuse bwt: the suffix array and BWT of a FASTA reference, written as
// bwa's index files (byte-identical to `bwa index`) or as raw files. The
// run lives in src/bwt (bwt_run.hpp).
#include <memory>
#include <string>

#include "bwt/bwt_options.hpp"
#include "bwt/bwt_run.hpp"
#include "cli/subcommand.hpp"
#include "core/report.hpp"

namespace seqfuse::cli {
namespace {

struct BwtConfig {
  CommonOptions common;
  bwt::BwtOptions bwt;
};

}  // namespace

Subcommand add_bwt(CLI::App& parent) {
  auto config = std::make_shared<BwtConfig>();
  CLI::App* app = parent.add_subcommand(
      "bwt", "Suffix array and BWT of a FASTA reference: bwa index files, or raw ones");
  app->footer(
      "Examples:\n"
      "  seqfuse bwt ref.fa                      ref.fa.bwt .sa .pac .ann .amb, as bwa index\n"
      "  seqfuse bwt ref.fa.gz -p idx/ref        the same files under idx/ref\n"
      "  seqfuse bwt ref.fa --format raw -p r    r.bwt.txt ('$' sentinel), r.sa (uint64), "
      "r.raw.json\n"
      "The bwa files hold both strands and are read by bwa mem and bwa aln unchanged.\n"
      "Ambiguous bases are replaced as bwa replaces them (and listed in .amb).");
  app->add_option("REF", config->bwt.reference, "Reference FASTA (plain, gzip, - for stdin)")
      ->required();
  app->add_option("-p,--prefix", config->bwt.prefix,
                  "Output prefix (default: the REF path, as bwa index)");
  app->add_option("--format", config->bwt.format, "bwa or raw")->capture_default_str();
  app->add_option("--sa-interval", config->bwt.sa_interval,
                  "bwa format: keep every N-th suffix array entry")
      ->capture_default_str();
  app->add_flag("--forward-only", config->bwt.forward_only,
                "raw format: index the text as given (no reverse complement)");
  app->add_option("-m,--max-memory", config->bwt.max_memory_gb,
                  "Host memory cap in GB (default: half the machine's memory)");
  add_threads_option(*app, config->common);
  add_device_option(*app, config->common);
  add_quiet_option(*app, config->common);
  add_json_option(*app, config->common.json);
  return {app, [config] {
            bwt::BwtOptions options = config->bwt;
            bwt::validate(options);
            options.threads = resolve_threads(config->common.threads);
            const DeviceSpec::Kind device = parse_device_spec(config->common.device).kind;
            if (device != DeviceSpec::Kind::kCpu)
              options.choose_device = [common = config->common] { return choose_device(common); };
            options.gpu_required = device == DeviceSpec::Kind::kGpu;
            JsonReport json(config->common.json, false);  // the index files are never stdout
            Reporter report("bwt", config->common.quiet);
            (void)bwt::run_bwt(options, report);
            json.write(report_source("bwt"), report.facts());
            return 0;
          }};
}

}  // namespace seqfuse::cli
