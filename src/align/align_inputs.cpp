#include "align/align_inputs.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <future>
#include <string>
#include <string_view>
#include <vector>

#include "align/db_part.hpp"
#include "align/search_db.hpp"
#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/output_file.hpp"
#include "core/parallel.hpp"
#include "core/regular_file.hpp"
#include "core/report.hpp"
#include "io/batch_reader.hpp"

namespace seqfuse::align {
namespace {

// An empty file is valid (an empty scatter chunk): run_align writes the
// header alone and warns.
io::SequenceBatch read_sequences(const std::string& path, unsigned threads) {
  register_input(path);  // -o may not name it
  return io::read_all(path, large_buffer_resource(), threads);
}

EncodedSequences encode(const ScoringScheme& scheme, const io::SequenceBatch& batch,
                        const std::string& path, unsigned threads) {
  EncodedSequences encoded(scheme);
  try {
    encoded.append_all(
        std::string_view(batch.bases.data(), batch.bases.size()), batch.offsets,
        [&batch](std::size_t i) { return batch.name(i); }, threads);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return encoded;
}

// The records of `range` alone, in a batch of their own; the rest are
// freed before anything is encoded.
io::SequenceBatch keep_records(io::SequenceBatch&& batch, TargetRange range) {
  if (range.begin == 0 && range.end == batch.size()) return std::move(batch);
  io::SequenceBatch part(large_buffer_resource());
  part.format = batch.format;
  part.first_record = batch.first_record + range.begin;
  part.bases.reserve(batch.offsets[range.end] - batch.offsets[range.begin]);
  if (batch.has_quality()) part.quals.reserve(part.bases.capacity());
  for (std::uint32_t k = range.begin; k < range.end; ++k) part.push_back_from(batch, k);
  return part;
}

struct TargetPart {
  io::SequenceBatch batch;
  std::size_t first = 0;  // index in the file of batch's record 0
};

// TARGET, or with --db-part its part alone. The part depends on every
// record's length, so a regular file is read twice: a first pass keeps the
// lengths only (8 bytes a record), a second the part's records, stopping
// after them; the records outside the part are never stored, so N jobs
// each hold about 1/N of a database. Stdin, a FIFO or a device can be read
// once: read whole, then cut.
TargetPart read_targets(const AlignOptions& config, unsigned threads) {
  if (config.db_part.empty()) return {read_sequences(config.target, threads), 0};
  const DbPart part = parse_db_part(config.db_part);
  std::error_code error;
  if (config.target == "-" || !std::filesystem::is_regular_file(config.target, error)) {
    io::SequenceBatch all = read_sequences(config.target, threads);
    const TargetRange range = db_part_range(all.offsets, part);
    return {keep_records(std::move(all), range), range.begin};
  }
  register_input(config.target);  // -o may not name it
  std::vector<std::uint64_t> offsets{0};
  {
    io::BatchReader lengths(config.target);
    while (const io::SequenceBatch* batch = lengths.next())
      for (std::size_t i = 0; i < batch->size(); ++i)
        offsets.push_back(offsets.back() + batch->length(i));
  }
  const TargetRange range = db_part_range(offsets, part);
  io::SequenceBatch kept(large_buffer_resource());
  kept.bases.reserve(offsets[range.end] - offsets[range.begin]);
  io::BatchReader reader(config.target);
  for (std::size_t index = 0; index < range.end;) {
    const io::SequenceBatch* batch = reader.next();
    if (batch == nullptr)
      throw Error("TARGET '" + config.target +
                  "' changed while it was read (--db-part reads it twice)");
    kept.format = batch->format;
    for (std::size_t i = 0; i < batch->size() && index < range.end; ++i, ++index)
      if (index >= range.begin) kept.push_back_from(*batch, i);
  }
  return {std::move(kept), range.begin};
}

// Threads for reading QUERY when TARGET is read beside it on the rest: in
// proportion to the files' sizes (a search's few queries against a 2.5 GB
// database left half the threads idle), at least one each.
unsigned query_read_threads(const AlignOptions& config, unsigned threads) {
  if (threads < 2) return 1;
  const std::uint64_t query = regular_file_size(config.query),
                      target = regular_file_size(config.target);
  if (query == 0 || target == 0) return threads / 2;
  const double share = static_cast<double>(query) / static_cast<double>(query + target);
  return std::clamp(static_cast<unsigned>(share * threads + 0.5), 1u, threads - 1);
}

}  // namespace

bool looks_like_dna(const io::SequenceBatch& batch, unsigned threads) {
  // Per byte: 1 for A C G T U N, 2 for the other IUPAC codes, 0 for the rest
  // (either case). A DNA input is read to its end (or its sample's), so by
  // a table on threads (string searches on one thread took 2.7 s for a 1 GB
  // QUERY).
  static const std::array<std::uint8_t, 256> kind = [] {
    std::array<std::uint8_t, 256> k{};
    for (const char c : std::string_view("ACGTUN")) k[static_cast<unsigned char>(c)] = 1;
    for (const char c : std::string_view("RYKMSWBDHV")) k[static_cast<unsigned char>(c)] = 2;
    for (int c = 'A'; c <= 'Z'; ++c)
      k[static_cast<unsigned>(c) | 0x20u] = k[static_cast<unsigned>(c)];
    return k;
  }();
  const std::string_view bases(batch.bases.data(), batch.bases.size());
  // Inputs up to kWhole bytes are read whole; larger ones (a database) by
  // kPieces pieces spread evenly over them: a protein set shows E, F, I, L,
  // P or Q in any piece, and a protein record hidden in a DNA file is still
  // refused when its letters are encoded.
  constexpr std::size_t kPiece = std::size_t{1} << 20, kPieces = 64, kWhole = kPiece * kPieces;
  const std::size_t pieces = (bases.size() + kPiece - 1) / kPiece;
  const bool sampled = bases.size() > kWhole;
  const std::size_t looked = sampled ? kPieces : pieces;
  std::atomic<bool> other{false};  // a letter that is no nucleotide code
  std::atomic<std::uint64_t> acgtn{0}, seen{0};
  parallel_chunks(looked, 1, threads, [&](unsigned, std::size_t piece, std::size_t) {
    if (other.load(std::memory_order_relaxed)) return;  // protein: stop soon
    const std::size_t at =
        sampled ? piece * (bases.size() - kPiece) / (kPieces - 1) : piece * kPiece;
    const std::string_view part = bases.substr(at, kPiece);
    std::uint64_t count = 0;
    bool any_other = false;
    for (const char c : part) {
      const std::uint8_t k = kind[static_cast<unsigned char>(c)];
      count += k & 1u;
      any_other |= k == 0;
    }
    if (any_other) other.store(true, std::memory_order_relaxed);
    acgtn.fetch_add(count, std::memory_order_relaxed);
    seen.fetch_add(part.size(), std::memory_order_relaxed);
  });
  return !other.load() && !bases.empty() && acgtn.load() * 2 >= seen.load();
}

std::optional<bool> target_is_dna(const io::SequenceBatch* target, unsigned threads) {
  // An empty input (a scatter chunk) says nothing: the other one decides.
  if (target == nullptr || target->bases.empty()) return std::nullopt;
  return looks_like_dna(*target, threads);
}

bool inputs_are_dna(const io::SequenceBatch& query, const std::string& query_path,
                    std::optional<bool> target_dna_or_none, const std::string& target_path,
                    unsigned threads) {
  if (query.bases.empty() && target_dna_or_none) return *target_dna_or_none;
  const bool query_dna = looks_like_dna(query, threads);
  if (!target_dna_or_none) return query_dna;
  const bool target_dna = *target_dna_or_none;
  if (query_dna != target_dna) {
    const auto name = [](const std::string& path) {
      return path == "-" ? std::string("stdin") : path;
    };
    throw Error("--alphabet auto: QUERY '" + name(query_path) + "' looks like " +
                (query_dna ? "DNA" : "protein") + " but TARGET '" + name(target_path) + "' like " +
                (target_dna ? "DNA" : "protein") +
                "; give --alphabet dna or protein to align them anyway");
  }
  return query_dna;
}

ScoringScheme make_scheme(const AlignOptions& c, bool dna) {
  const bool protein = !dna;
  GapPenalties gaps{protein ? 11 : 5, protein ? 1 : 2};
  if (c.gap_open) gaps.open = *c.gap_open;
  if (c.gap_extend) gaps.extend = *c.gap_extend;
  validate_gaps(gaps);
  if (!c.matrix.empty()) return ScoringScheme::named_or_file(c.matrix, gaps);
  if (protein) return ScoringScheme::builtin("blosum62", gaps);
  return ScoringScheme::match_mismatch(c.match.value_or(2), c.mismatch.value_or(-3), gaps);
}

AlignInputs read_align_inputs(const AlignOptions& config, unsigned threads) {
  const bool two_files = !config.target.empty();
  // Both files are read at once, the threads shared by size.
  const unsigned query_threads = two_files ? query_read_threads(config, threads) : threads;
  const unsigned target_threads = std::max(1u, threads - query_threads);
  if (is_search_db(config.query))
    throw Error("QUERY '" + config.query +
                "' is a seqfuse search database; a database can only be TARGET");
  const bool target_is_db = two_files && is_search_db(config.target);
  std::future<TargetPart> target_read;
  std::future<std::unique_ptr<DbTargets>> db_open;
  if (target_is_db)
    db_open = std::async(std::launch::async, [&config, target_threads] {
      return open_db_targets(config, target_threads);
    });
  else if (two_files)
    target_read = std::async(std::launch::async, [&config, target_threads] {
      return read_targets(config, target_threads);
    });
  io::SequenceBatch query_batch = read_sequences(config.query, query_threads);
  std::unique_ptr<DbTargets> target_db = target_is_db ? db_open.get() : nullptr;
  TargetPart target_part = two_files && !target_is_db ? target_read.get() : TargetPart();
  if (target_db) target_part = {std::move(target_db->names), target_db->first};
  io::SequenceBatch target_batch = std::move(target_part.batch);
  const std::size_t target_first = target_part.first;
  if (config.pairs && target_batch.size() != query_batch.size())
    throw Error("--pairs: TARGET '" + config.target + "' has " +
                std::to_string(target_batch.size()) + " records, QUERY '" + config.query +
                "' has " + std::to_string(query_batch.size()));

  // auto looks at both inputs (a matrix or --match/--mismatch decides alone).
  const bool dna =
      config.alphabet == "dna" ||
      (config.alphabet == "auto" && config.matrix.empty() && !config.match && !config.mismatch &&
       inputs_are_dna(query_batch, config.query,
                      target_db ? std::optional<bool>(target_db->db->info().dna)
                                : target_is_dna(two_files ? &target_batch : nullptr, threads),
                      config.target, threads)) ||
      (config.alphabet == "auto" && (config.match || config.mismatch));
  auto scheme = std::make_unique<const ScoringScheme>(make_scheme(config, dna));
  trace("align: inputs read");
  EncodedSequences queries = encode(*scheme, query_batch, config.query, threads);
  EncodedSequences targets(*scheme);
  if (target_db) {
    target_db->db->check_scheme(*scheme);
    targets = EncodedSequences::external(*scheme, target_db->codes, target_db->offsets);
  } else if (two_files) {
    targets = encode(*scheme, target_batch, config.target, threads);
  }
  trace("align: inputs encoded");
  return {std::move(query_batch), std::move(target_batch), target_first,      std::move(scheme),
          std::move(target_db),   std::move(queries),      std::move(targets)};
}

}  // namespace seqfuse::align
