// seqfuse align-db: builds the search database that align-sw / align-nw
// take as TARGET in place of the FASTA (src/align/align_db.hpp).
#include <memory>
#include <string>

#include "align/align_db.hpp"
#include "cli/subcommand.hpp"
#include "core/report.hpp"

namespace seqfuse::cli {
namespace {

struct AlignDbConfig {
  CommonOptions common;
  align::AlignDbOptions db;
};

}  // namespace

Subcommand add_align_db(CLI::App& parent) {
  auto config = std::make_shared<AlignDbConfig>();
  CLI::App* app = parent.add_subcommand(
      "align-db", "Build a search database of TARGET sequences for align-sw / align-nw");
  app->footer(
      "Examples:\n"
      "  seqfuse align-db uniprot.fa.gz -o uniprot.sfdb      read, check and encode once\n"
      "  seqfuse align-sw queries.fa uniprot.sfdb --top 10   then search it, no parsing\n"
      "The database holds the letters encoded for one alphabet: build it with the\n"
      "--alphabet / --matrix the searches use (a search with other letters is refused).\n"
      "A search of the database writes the same bytes as a search of the FASTA file,\n"
      "--db-part and GPU parts included; the file is recognised by its content, not its name.");
  app->add_option("DB", config->db.input, "Target FASTA/FASTQ (plain, gzip, - for stdin)")
      ->required();
  app->add_option("-o,--output", config->db.output, "Database file to write (.sfdb)")->required();
  app->add_option("--alphabet", config->db.alphabet,
                  "auto (from the letters), dna or protein, as the searches' --alphabet")
      ->capture_default_str();
  app->add_option("--matrix", config->db.matrix,
                  "The searches' --matrix, when it is not the alphabet's default (its letters "
                  "are what the database encodes)");
  add_threads_option(*app, config->common);
  add_quiet_option(*app, config->common);
  add_json_option(*app, config->common.json);
  return {app, [config] {
            align::AlignDbOptions options = config->db;
            align::validate(options);
            options.threads = resolve_threads(config->common.threads);
            JsonReport json(config->common.json, false);
            Reporter report("align-db", config->common.quiet);
            align::run_align_db(options, report);
            json.write(report_source("align-db"), report.facts());
            return 0;
          }};
}

}  // namespace seqfuse::cli
