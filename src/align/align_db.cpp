#include "align/align_db.hpp"

#include <filesystem>
#include <string_view>

#include "align/align_inputs.hpp"
#include "align/search_db.hpp"
#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/output_file.hpp"
#include "io/batch_reader.hpp"

namespace seqfuse::align {

void validate(const AlignDbOptions& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (c.output.empty()) add("-o/--output is required: the database is a file");
  if (c.output == "-") add("-o -: the database is written to a file, not to standard output");
  if (c.alphabet != "auto" && c.alphabet != "dna" && c.alphabet != "protein")
    add("--alphabet must be auto, dna or protein");
  if (!problems.empty()) throw UsageError(problems);
}

void run_align_db(const AlignDbOptions& c, Reporter& report) {
  const RunScope run;  // the input registered below is this run's
  Stopwatch clock;
  OutputFile out(c.output, OutputKind::binary);  // an unwritable path fails before work
  if (is_search_db(c.input)) throw Error("'" + c.input + "' is already a seqfuse search database");
  register_input(c.input);  // -o may not name it
  const io::SequenceBatch batch = io::read_all(c.input, large_buffer_resource(), c.threads);
  trace("align-db: read");
  RunFacts& facts = report.facts();
  facts.phase("read");

  // The scheme align-sw would build for these letters: only its letters
  // matter here (codes index them), not its scores or gaps.
  AlignOptions scheme_options;
  scheme_options.matrix = c.matrix;
  const bool dna = c.alphabet == "dna" ||
                   (c.alphabet == "auto" && c.matrix.empty() && looks_like_dna(batch, c.threads));
  const ScoringScheme scheme = make_scheme(scheme_options, dna);
  EncodedSequences targets(scheme);
  try {
    targets.append_all(
        std::string_view(batch.bases.data(), batch.bases.size()), batch.offsets,
        [&batch](std::size_t i) { return batch.name(i); }, c.threads);
  } catch (const Error& e) {
    throw Error(c.input + ": " + e.what());
  }
  trace("align-db: encoded");
  facts.phase("encode");
  write_search_db(out, scheme, dna, batch, targets);
  out.commit();

  facts.phase("write");
  facts.input(c.input);
  if (!c.matrix.empty() && std::filesystem::is_regular_file(c.matrix)) facts.input(c.matrix);
  facts.output(c.output);
  facts.count("records", batch.size());
  facts.count("residues", batch.total_bases());
  facts.device(DeviceChoice{}, c.threads);
  const double seconds = clock.seconds();
  facts.throughput(static_cast<double>(batch.total_bases()), seconds, "residues/s");
  if (batch.empty())
    report.warn("'" + (c.input == "-" ? std::string("stdin") : c.input) +
                "' has no sequences: the database is empty");
  report.summary(std::to_string(batch.size()) + " records, " +
                     si_number(static_cast<double>(batch.total_bases())) + " residues (" +
                     (dna ? std::string("dna") : scheme.name()) + " letters)",
                 seconds, rate(static_cast<double>(batch.total_bases()), seconds, "residues"));
}

}  // namespace seqfuse::align
