// seqfuse align-sw / align-nw: the command line of pairwise alignment, CPU
// or GPU, scores equal to Parasail's. The run lives in src/align (align_run.hpp).
#include <memory>
#include <string>

#include "align/align_options.hpp"
#include "align/align_run.hpp"
#include "cli/subcommand.hpp"
#include "core/report.hpp"

namespace seqfuse::cli {
namespace {

using align::AlignMode;

struct AlignConfig {
  CommonOptions common;
  align::AlignOptions align;
};

}  // namespace

Subcommand add_align(CLI::App& parent, AlignMode mode) {
  auto config = std::make_shared<AlignConfig>();
  config->align.mode = mode;
  const bool local = mode == AlignMode::local;
  const std::string name = local ? "align-sw" : "align-nw";
  CLI::App* app = parent.add_subcommand(
      name, local ? "Local pairwise alignment (Smith-Waterman), scores as Parasail's sw"
                  : "Global pairwise alignment (Needleman-Wunsch), scores as Parasail's nw");
  app->footer(
      "Examples:\n  seqfuse " + name +
      " queries.fa db.fa --top 10 -o hits.tsv      every query against db.fa\n"
      "  seqfuse " +
      name +
      " a.fa b.fa --pairs --traceback      record i of a.fa with record i of b.fa\n"
      "  seqfuse " +
      name +
      " reads.fa --alphabet dna --top 0        all against all within one file\n"
      "  seqfuse " +
      name +
      " reads.fq ref.fa --strand both --format sam --min-score 100    reads on both strands\n"
      "  seqfuse " +
      name +
      " q.fa db.fa --db-part 2/8 -o p2.tsv    part 2 of 8 of db.fa (then align-merge)\n"
      "Gaps: a gap of length k costs O + (k-1)*E. Protein defaults: blosum62, 11/1;\n"
      "DNA defaults: match 2, mismatch -3, gaps 5/2. Coordinates are 0-based.");
  app->add_option("QUERY", config->align.query, "Query FASTA/FASTQ (plain, gzip, - for stdin)")
      ->required();
  app->add_option("TARGET", config->align.target,
                  "Target FASTA/FASTQ, or a search database built by align-db; without it, all "
                  "against all");
  app->add_flag("--pairs", config->align.pairs, "Align record i of QUERY with record i of TARGET");
  app->add_option("--top", config->align.top, "Best targets kept per query (0 keeps all)")
      ->capture_default_str();
  app->add_option("--matrix", config->align.matrix,
                  "blosum45/50/62/80, pam30/70/250, nuc44, or an NCBI-format file");
  app->add_option("--gap-open", config->align.gap_open, "Gap open penalty O");
  app->add_option("--gap-extend", config->align.gap_extend, "Gap extend penalty E");
  app->add_option("--match", config->align.match, "DNA match score (default 2)");
  app->add_option("--mismatch", config->align.mismatch, "DNA mismatch score (default -3)");
  app->add_option("--alphabet", config->align.alphabet, "auto, dna or protein")
      ->capture_default_str();
  app->add_flag("--traceback", config->align.traceback,
                "Add begin coordinates, CIGAR (=, X, I, D) and identity");
  app->add_option("--format", config->align.format, "tsv, csv (parasail_aligner's), sam or blast6")
      ->capture_default_str();
  app->add_option("--strand", config->align.strand,
                  "DNA: plus (the query as given, Parasail's), minus (its reverse complement; "
                  "query coordinates count on it) or both (the better strand per target, plus "
                  "on a tie). tsv adds a strand column, sam sets FLAG 16, blast6 writes "
                  "sstart > send")
      ->capture_default_str();
  app->add_option("--min-score", config->align.min_score,
                  "Write only hits scoring S or more (--pairs: pairs below S are left out; sam: "
                  "a query without hits gets an unmapped record)")
      ->type_name("S");
  app->add_option("--db-part", config->align.db_part,
                  "Search part i of N of TARGET only (1 <= i <= N): contiguous records, each in "
                  "the part holding the middle of its residues (+1 a record) laid end to end "
                  "and cut in N equal lengths; csv keeps whole-file target indices. Join the "
                  "parts' outputs with 'seqfuse align-merge'")
      ->type_name("i/N");
  app->add_option("-o,--output", config->align.output, "Output path, - for stdout")
      ->capture_default_str();
  add_compress_options(*app);
  add_threads_option(*app, config->common);
  add_device_option(*app, config->common);
  add_quiet_option(*app, config->common);
  add_json_option(*app, config->common.json);
  return {app, [config, name] {
            align::AlignOptions options = config->align;
            align::validate(options);
            options.threads = resolve_threads(config->common.threads);
            const DeviceSpec::Kind device = parse_device_spec(config->common.device).kind;
            if (device != DeviceSpec::Kind::kCpu)
              options.choose_device = [common = config->common] { return choose_device(common); };
            options.gpu_required = device == DeviceSpec::Kind::kGpu;
            options.command_line = command_line();
            JsonReport json(config->common.json, names_stdout(options.output));
            Reporter report(name, config->common.quiet);
            (void)align::run_align(options, report);
            json.write(report_source(name), report.facts());
            return 0;
          }};
}

}  // namespace seqfuse::cli
