// seqfuse align-merge: joins the outputs of a search split over database
// parts (align-sw/align-nw --db-part i/N, or prebuilt shards) into the
// bytes of one whole-database run. The merge lives in src/align
// (merge_shards.hpp).
#include <memory>
#include <string>

#include "align/merge_shards.hpp"
#include "cli/subcommand.hpp"
#include "core/report.hpp"

namespace seqfuse::cli {
namespace {

struct MergeConfig {
  CommonOptions common;
  align::MergeOptions merge;
};

}  // namespace

Subcommand add_align_merge(CLI::App& parent) {
  auto config = std::make_shared<MergeConfig>();
  CLI::App* app = parent.add_subcommand(
      "align-merge",
      "Merge the outputs of a search split into database parts: one whole-database run's output");
  app->footer(
      "Examples:\n"
      "  for i in 1 2 3; do seqfuse align-sw q.fa db.fa --db-part $i/3 -o part$i.tsv; done\n"
      "  seqfuse align-merge part1.tsv part2.tsv part3.tsv -o hits.tsv   as align-sw q.fa db.fa\n"
      "  seqfuse align-merge --top 1 shard*.sam -o best.sam        prebuilt shards, in database "
      "order\n"
      "PARTs are the outputs of one QUERY file against consecutive parts of one database,\n"
      "given in database order, all in one format, run with a --top of at least this one's\n"
      "(or 0). Per query, hits come by decreasing score, ties in database order; the lines\n"
      "are copied as the parts hold them. SAM: the @SQ lines of every part, and the first\n"
      "part's @PG with --db-part taken out, so parts whose command lines differ in --db-part\n"
      "alone merge into the whole run's bytes.");
  app->add_option("PART", config->merge.parts,
                  "Part outputs (tsv, csv, sam or blast6; plain or gzip; - for stdin), in "
                  "database order")
      ->required();
  app->add_option("--top", config->merge.top,
                  "Best targets kept per query, as align's --top (0 keeps all)")
      ->capture_default_str();
  app->add_option("--format", config->merge.format,
                  "auto (from the parts' first lines), tsv, csv, sam or blast6")
      ->capture_default_str();
  app->add_option("-o,--output", config->merge.output, "Output path, - for stdout")
      ->capture_default_str();
  add_compress_options(*app);
  add_threads_option(*app, config->common);
  add_quiet_option(*app, config->common);
  add_json_option(*app, config->common.json);
  return {app, [config] {
            const align::MergeOptions& options = config->merge;
            align::validate(options);
            JsonReport json(config->common.json, names_stdout(options.output));
            Reporter report("align-merge", config->common.quiet);
            align::run_align_merge(options, report);
            json.write(report_source("align-merge"), report.facts());
            return 0;
          }};
}

}  // namespace seqfuse::cli
