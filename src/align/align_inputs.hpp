// The inputs of an alignment run: both files read at once (the threads
// shared by their sizes), the alphabet guessed from the queries when not
// given, the scoring scheme built, and the letters encoded on threads.
#pragma once

#include <memory>
#include <optional>

#include "align/align_options.hpp"
#include "align/scoring.hpp"
#include "align/search_db_targets.hpp"
#include "io/batch.hpp"

namespace seqfuse::align {

struct AlignInputs {
  io::SequenceBatch query_batch, target_batch;  // target_batch empty without TARGET
  // Index in the TARGET file of target_batch's record 0: --db-part keeps a
  // range of the file, and outputs that number targets (CSV) number them
  // in the whole file.
  std::size_t target_first = 0;
  // On the heap: the encoded sequences point to it, and inputs move.
  std::unique_ptr<const ScoringScheme> scheme;
  // TARGET as a search database (.sfdb): the mapping `targets` reads, and
  // target_batch holds names and lengths only.
  std::unique_ptr<DbTargets> target_db;
  EncodedSequences queries, targets;
};

// Throws seqfuse::Error naming the file for an unreadable or empty input,
// --pairs files of different record counts, or a letter the scheme lacks.
// With --db-part, only the part's target records are kept and encoded.
// A TARGET that is a search database (search_db.hpp, told by its magic) is
// mapped and checked instead of read; QUERY may not be one.
[[nodiscard]] AlignInputs read_align_inputs(const AlignOptions& options, unsigned threads);

// DNA when every letter is an IUPAC nucleotide code and most are A, C, G, T,
// U or N. Proteins use E, F, I, L, P or Q (not nucleotide codes) within a few
// dozen residues, so real protein sets do not pass. Inputs over 64 MB are
// judged by 64 pieces of 1 MB spread over them.
[[nodiscard]] bool looks_like_dna(const io::SequenceBatch& batch, unsigned threads);

// What TARGET says about its alphabet for --alphabet auto: nothing (all
// against all, or an empty file), or DNA or not (looks_like_dna of its
// letters; a search database's stored flag).
[[nodiscard]] std::optional<bool> target_is_dna(const io::SequenceBatch* target, unsigned threads);

// --alphabet auto: whether QUERY and TARGET are DNA, each judged alone; an
// empty one leaves it to the other. Throws seqfuse::Error naming both files
// when one looks like DNA and the other like protein.
[[nodiscard]] bool inputs_are_dna(const io::SequenceBatch& query, const std::string& query_path,
                                  std::optional<bool> target_dna, const std::string& target_path,
                                  unsigned threads);

// The scheme the options ask for: --matrix, else BLOSUM62 11/1 for protein
// and match 2 / mismatch -3 / gaps 5/2 for DNA, with --gap-open/--gap-extend.
[[nodiscard]] ScoringScheme make_scheme(const AlignOptions& options, bool dna);

}  // namespace seqfuse::align
