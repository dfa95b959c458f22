// seqfuse align-sw / align-nw: pairwise alignment, CPU or GPU, scores equal
// to Parasail's.
#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <future>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>

#include "align/align_job.hpp"
#include "align/gpu_scores.hpp"
#include "align/output_format.hpp"
#include "align/scoring.hpp"
#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/output_file.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"
#include "io/batch_reader.hpp"
#include "cli/subcommand.hpp"

namespace seqfuse::cli {
namespace {

using align::AlignMode;

struct AlignConfig {
  CommonOptions common;
  AlignMode mode = AlignMode::local;
  std::string query;
  std::string target;  // empty: all against all within QUERY
  std::string output = "-";
  bool pairs = false;
  int top = 10;
  std::string matrix;  // empty: the alphabet's default
  std::optional<int> gap_open, gap_extend;
  std::optional<int> match, mismatch;
  std::string alphabet = "auto";
  bool traceback = false;
  std::string format = "tsv";
};

// Every problem with the command line at once, before any work.
void validate(const AlignConfig& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (c.pairs && c.target.empty()) add("--pairs needs a TARGET file");
  if (c.top < 0) add("--top must be 0 or more");
  if (c.alphabet != "auto" && c.alphabet != "dna" && c.alphabet != "protein")
    add("--alphabet must be auto, dna or protein");
  if (!c.matrix.empty() && (c.match || c.mismatch))
    add("--matrix and --match/--mismatch exclude each other");
  if (c.alphabet == "protein" && (c.match || c.mismatch))
    add("--match/--mismatch score DNA, not protein");
  if (c.match && *c.match <= 0) add("--match must be a positive score");
  if (c.mismatch && *c.mismatch > 0) add("--mismatch is a score: 0 or negative, such as -3");
  if (c.gap_open && *c.gap_open < 0) add("--gap-open is a penalty: 0 or more");
  if (c.gap_extend && *c.gap_extend < 0) add("--gap-extend is a penalty: 0 or more");
  try {
    (void)align::parse_output_format(c.format);
  } catch (const UsageError& e) {
    add(e.what());
  }
  if (!problems.empty()) throw UsageError(problems);
}

// DNA when every letter is an IUPAC nucleotide code and most are A, C, G, T,
// U or N. Proteins use E, F, I, L, P or Q (not nucleotide codes) within a few
// dozen residues, so real protein sets do not pass.
bool looks_like_dna(const io::SequenceBatch& batch, unsigned threads) {
  // Per byte: 1 for A C G T U N, 2 for the other IUPAC codes, 0 for the rest
  // (either case). A DNA file is read to its end, so by a table on threads
  // (string searches on one thread took 2.7 s for a 1 GB QUERY).
  static const std::array<std::uint8_t, 256> kind = [] {
    std::array<std::uint8_t, 256> k{};
    for (const char c : std::string_view("ACGTUN")) k[static_cast<unsigned char>(c)] = 1;
    for (const char c : std::string_view("RYKMSWBDHV")) k[static_cast<unsigned char>(c)] = 2;
    for (int c = 'A'; c <= 'Z'; ++c)
      k[static_cast<unsigned>(c) | 0x20u] = k[static_cast<unsigned>(c)];
    return k;
  }();
  const std::string_view bases(batch.bases.data(), batch.bases.size());
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  std::atomic<bool> other{false};  // a letter that is no nucleotide code
  std::atomic<std::uint64_t> acgtn{0};
  parallel_chunks((bases.size() + kPiece - 1) / kPiece, 1, threads,
                  [&](unsigned, std::size_t piece, std::size_t) {
                    if (other.load(std::memory_order_relaxed)) return;  // protein: stop soon
                    const std::string_view part = bases.substr(piece * kPiece, kPiece);
                    std::uint64_t count = 0;
                    bool any_other = false;
                    for (const char c : part) {
                      const std::uint8_t k = kind[static_cast<unsigned char>(c)];
                      count += k & 1u;
                      any_other |= k == 0;
                    }
                    if (any_other) other.store(true, std::memory_order_relaxed);
                    acgtn.fetch_add(count, std::memory_order_relaxed);
                  });
  return !other.load() && !bases.empty() && acgtn.load() * 2 >= bases.size();
}

align::ScoringScheme make_scheme(const AlignConfig& c, bool dna) {
  const bool protein = !dna;
  align::GapPenalties gaps{protein ? 11 : 5, protein ? 1 : 2};
  if (c.gap_open) gaps.open = *c.gap_open;
  if (c.gap_extend) gaps.extend = *c.gap_extend;
  align::validate_gaps(gaps);
  if (!c.matrix.empty()) return align::ScoringScheme::named_or_file(c.matrix, gaps);
  if (protein) return align::ScoringScheme::builtin("blosum62", gaps);
  return align::ScoringScheme::match_mismatch(c.match.value_or(2), c.mismatch.value_or(-3), gaps);
}

io::SequenceBatch read_sequences(const std::string& path, const char* role, unsigned threads) {
  io::SequenceBatch batch = io::read_all(path, large_buffer_resource(), threads);
  if (batch.empty()) throw Error(std::string(role) + " '" + path + "' has no sequences");
  return batch;
}

align::EncodedSequences encode(const align::ScoringScheme& scheme, const io::SequenceBatch& batch,
                               const std::string& path, unsigned threads) {
  align::EncodedSequences encoded(scheme);
  try {
    encoded.append_all(
        std::string_view(batch.bases.data(), batch.bases.size()), batch.offsets,
        [&batch](std::size_t i) { return batch.name(i); }, threads);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return encoded;
}

// The sequences of both files: the target file is read on a thread of its
// own while the query file is read on this one; each is then encoded on
// `threads` threads.
struct AlignInputs {
  io::SequenceBatch query_batch, target_batch;
  // On the heap: the encoded sequences point to it, and inputs move.
  std::unique_ptr<const align::ScoringScheme> scheme;
  align::EncodedSequences queries, targets;
};

// Size of a regular file, or 0 (a pipe, stdin, an error: reported later).
std::uintmax_t file_bytes(const std::string& path) {
  std::error_code error;
  if (path == "-" || !std::filesystem::is_regular_file(path, error)) return 0;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

// Threads for reading QUERY when TARGET is read beside it on the rest: in
// proportion to the files' sizes (a search's few queries against a 2.5 GB
// database left half the threads idle), at least one each.
unsigned query_read_threads(const AlignConfig& config, unsigned threads) {
  if (threads < 2) return 1;
  const std::uintmax_t query = file_bytes(config.query), target = file_bytes(config.target);
  if (query == 0 || target == 0) return threads / 2;
  const double share = static_cast<double>(query) / static_cast<double>(query + target);
  return std::clamp(static_cast<unsigned>(share * threads + 0.5), 1u, threads - 1);
}

AlignInputs read_inputs(const AlignConfig& config, unsigned threads) {
  const bool two_files = !config.target.empty();
  // Both files are read at once, the threads shared by size.
  const unsigned query_threads = two_files ? query_read_threads(config, threads) : threads;
  const unsigned target_threads = std::max(1u, threads - query_threads);
  std::future<io::SequenceBatch> target_read;
  if (two_files)
    target_read = std::async(std::launch::async, [&config, target_threads] {
      return read_sequences(config.target, "TARGET", target_threads);
    });
  io::SequenceBatch query_batch = read_sequences(config.query, "QUERY", query_threads);
  io::SequenceBatch target_batch = two_files ? target_read.get() : io::SequenceBatch();
  if (config.pairs && target_batch.size() != query_batch.size())
    throw Error("--pairs: TARGET '" + config.target + "' has " +
                std::to_string(target_batch.size()) + " records, QUERY '" + config.query +
                "' has " + std::to_string(query_batch.size()));

  const bool dna = config.alphabet == "dna" ||
                   (config.alphabet == "auto" && config.matrix.empty() && !config.match &&
                    !config.mismatch && looks_like_dna(query_batch, threads)) ||
                   (config.alphabet == "auto" && (config.match || config.mismatch));
  auto scheme = std::make_unique<const align::ScoringScheme>(make_scheme(config, dna));
  trace("align: inputs read");
  align::EncodedSequences queries = encode(*scheme, query_batch, config.query, threads);
  align::EncodedSequences targets = two_files
                                        ? encode(*scheme, target_batch, config.target, threads)
                                        : align::EncodedSequences(*scheme);
  trace("align: inputs encoded");
  return {std::move(query_batch), std::move(target_batch), std::move(scheme), std::move(queries),
          std::move(targets)};
}

int run_align(const AlignConfig& config) {
  Stopwatch clock;
  const char* name = config.mode == AlignMode::local ? "align-sw" : "align-nw";
  Reporter report(name, config.common.quiet);
  const align::OutputFormat format = align::parse_output_format(config.format);
  // The device is chosen on a thread of its own: a GPU's start-up (~0.3 s
  // for the driver and its context) overlaps reading the input. Device
  // problems are still reported before the input's.
  const bool cpu_only = parse_device_spec(config.common.device).kind == DeviceSpec::Kind::kCpu;
  std::future<DeviceChoice> device_choice =
      std::async(cpu_only ? std::launch::deferred : std::launch::async,
                 [&config] { return choose_device(config.common); });
  std::optional<OutputFile> out_file;
  std::optional<AlignInputs> inputs;
  try {
    out_file.emplace(config.output);  // created first: an unwritable path fails before work
    inputs.emplace(read_inputs(config, resolve_threads(config.common.threads)));
  } catch (...) {
    (void)device_choice.get();
    throw;
  }
  const DeviceChoice device = device_choice.get();
  trace("align: device chosen, sequences read and encoded");
  OutputFile& out = *out_file;
  const io::SequenceBatch& query_batch = inputs->query_batch;
  const bool two_files = !config.target.empty();
  const align::ScoringScheme& scheme = *inputs->scheme;
  const align::EncodedSequences& queries = inputs->queries;
  const align::EncodedSequences& targets = inputs->targets;
  const io::SequenceBatch& target_names = two_files ? inputs->target_batch : query_batch;

  align::AlignJob job;
  job.mode = config.mode;
  job.layout = config.pairs ? align::PairLayout::pairs
               : two_files  ? align::PairLayout::search
                            : align::PairLayout::all_vs_all;
  job.top = static_cast<std::size_t>(config.top);
  job.traceback = config.traceback || align::needs_traceback(format);
  job.threads = resolve_threads(config.common.threads);
  job.gpu = device.gpu && align::gpu_can_score(scheme);
  job.progress = [&report, total = query_batch.size()](std::size_t done) {
    report.progress(std::to_string(done) + " / " + std::to_string(total) + " queries");
  };
  if (device.gpu && !job.gpu) {
    if (parse_device_spec(config.common.device).kind == DeviceSpec::Kind::kGpu)
      throw Error("--device gpu: the GPU engine takes matrices of at most 32 letters; " +
                  scheme.name() + " has " + std::to_string(scheme.alphabet_size()));
    report.warn("matrix " + scheme.name() + " has more than 32 letters: aligning on the CPU");
  }

  align::AlignmentWriter writer(out, format, job.traceback, command_line());
  std::vector<align::AlignmentWriter::Reference> references;
  if (format == align::OutputFormat::sam) {
    for (std::size_t i = 0; i < target_names.size(); ++i)
      references.push_back({target_names.name(i), target_names.length(i)});
  }
  writer.begin(references);
  // Formatting 1 M lines takes longer than aligning them on a GPU: batches
  // of hits are formatted on all threads, in chunks written in order.
  const auto write_hits = [&](std::span<const align::AlignHit> hits) {
    writer.write_batch(
        hits.size(),
        [&](std::size_t i) {
          const align::AlignHit& hit = hits[i];
          return align::AlignmentRecord{hit.query,
                                        hit.target,
                                        query_batch.name(hit.query),
                                        target_names.name(hit.target),
                                        query_batch.sequence(hit.query),
                                        query_batch.length(hit.query),
                                        target_names.length(hit.target),
                                        &hit.result};
        },
        job.threads);
  };
  const align::AlignStats stats =
      align::run_alignment_batched(job, scheme, queries, targets, write_hits);
  trace("align: aligned and written");
  out.commit();

  const double seconds = clock.seconds();
  std::string what = std::to_string(stats.pairs) + " pairs, " +
                     si_number(static_cast<double>(stats.cells)) + " cells on " +
                     (job.gpu ? device.name() : std::string("cpu"));
  std::string speed = per_second(static_cast<double>(stats.cells), seconds, "CUPS");
  if (job.gpu)
    speed +=
        "; device " + per_second(static_cast<double>(stats.cells), stats.device_seconds, "CUPS");
  report.summary(what, seconds, speed);
  return 0;
}

}  // namespace

Subcommand add_align(CLI::App& parent, AlignMode mode) {
  auto config = std::make_shared<AlignConfig>();
  config->mode = mode;
  const bool local = mode == AlignMode::local;
  const std::string name = local ? "align-sw" : "align-nw";
  CLI::App* app = parent.add_subcommand(
      name, local ? "Local pairwise alignment (Smith-Waterman), scores as Parasail's sw"
                  : "Global pairwise alignment (Needleman-Wunsch), scores as Parasail's nw");
  app->footer("Examples:\n  seqfuse " + name +
              " queries.fa db.fa --top 10 -o hits.tsv      every query against db.fa\n"
              "  seqfuse " +
              name +
              " a.fa b.fa --pairs --traceback      record i of a.fa with record i of b.fa\n"
              "  seqfuse " +
              name +
              " reads.fa --alphabet dna --top 0        all against all within one file\n"
              "Gaps: a gap of length k costs O + (k-1)*E. Protein defaults: blosum62, 11/1;\n"
              "DNA defaults: match 2, mismatch -3, gaps 5/2. Coordinates are 0-based.");
  app->add_option("QUERY", config->query, "Query FASTA/FASTQ (plain, gzip, - for stdin)")
      ->required();
  app->add_option("TARGET", config->target, "Target FASTA/FASTQ; without it, all against all");
  app->add_flag("--pairs", config->pairs, "Align record i of QUERY with record i of TARGET");
  app->add_option("--top", config->top, "Best targets kept per query (0 keeps all)")
      ->capture_default_str();
  app->add_option("--matrix", config->matrix,
                  "blosum45/50/62/80, pam30/70/250, nuc44, or an NCBI-format file");
  app->add_option("--gap-open", config->gap_open, "Gap open penalty O");
  app->add_option("--gap-extend", config->gap_extend, "Gap extend penalty E");
  app->add_option("--match", config->match, "DNA match score (default 2)");
  app->add_option("--mismatch", config->mismatch, "DNA mismatch score (default -3)");
  app->add_option("--alphabet", config->alphabet, "auto, dna or protein")->capture_default_str();
  app->add_flag("--traceback", config->traceback,
                "Add begin coordinates, CIGAR (=, X, I, D) and identity");
  app->add_option("--format", config->format, "tsv, csv (parasail_aligner's), sam or blast6")
      ->capture_default_str();
  app->add_option("-o,--output", config->output, "Output path, - for stdout")
      ->capture_default_str();
  add_threads_option(*app, config->common);
  add_device_option(*app, config->common);
  add_quiet_option(*app, config->common);
  return {app, [config] {
            validate(*config);
            return run_align(*config);
          }};
}

}  // namespace seqfuse::cli
