// ScoringScheme: a substitution matrix over an alphabet, plus affine gap
// penalties. Sequences are encoded once into alphabet codes (one byte per
// residue, lowercase folded to uppercase); every engine works on codes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/default_init.hpp"
#include "gpu/align/dp_cell.hpp"

namespace seqfuse::align {

// Encoded residues of one sequence: indices into a ScoringScheme's alphabet.
using Codes = std::span<const std::uint8_t>;

// How the match/mismatch DNA scheme scores N and the other IUPAC codes.
enum class AmbiguousBases {
  mismatch,  // against anything, as a mismatch (seqfuse's rule, DESIGN.md)
  zero,      // against anything, 0: what `parasail_aligner -d -M m -X x` does
};

// Where encode() stopped: the first letter outside the alphabet.
struct EncodeStatus {
  bool ok = true;
  std::size_t position = 0;  // 0-based index of the bad letter in the sequence
  char letter = 0;
};

class ScoringScheme {
 public:
  static constexpr std::uint8_t kNotInAlphabet = 0xFF;
  static constexpr std::size_t kMaxAlphabet = 64;

  // `scores` is row-major, letters.size()^2 entries, each within [-127, 127].
  // Letters are case-folded to uppercase and must be distinct printable
  // characters. Throws UsageError for bad gaps, Error for a bad table.
  ScoringScheme(std::string name, std::string_view letters, std::span<const int> scores,
                GapPenalties gaps);

  // blosum45, blosum50, blosum62, blosum80, pam30, pam70, pam250, nuc44
  // (UsageError for another name).
  [[nodiscard]] static ScoringScheme builtin(std::string_view matrix_name, GapPenalties gaps);
  [[nodiscard]] static std::vector<std::string_view> builtin_names();
  // An NCBI-format matrix file (see matrix_file.hpp).
  [[nodiscard]] static ScoringScheme from_matrix_file(const std::string& path, GapPenalties gaps);
  // A builtin name, else a path to a matrix file.
  [[nodiscard]] static ScoringScheme named_or_file(const std::string& name_or_path,
                                                   GapPenalties gaps);
  // DNA: A, C, G, T score `match` against themselves and `mismatch` (a score,
  // normally negative) against each other. N and the IUPAC ambiguity codes
  // R Y S W K M B D H V are accepted and scored as `ambiguous` says; a code
  // never matches, not even itself.
  [[nodiscard]] static ScoringScheme match_mismatch(
      int match, int mismatch, GapPenalties gaps,
      AmbiguousBases ambiguous = AmbiguousBases::mismatch);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::string_view letters() const noexcept { return letters_; }
  [[nodiscard]] std::size_t alphabet_size() const noexcept { return letters_.size(); }
  [[nodiscard]] GapPenalties gaps() const noexcept { return gaps_; }
  [[nodiscard]] int gap_open() const noexcept { return gaps_.open; }
  [[nodiscard]] int gap_extend() const noexcept { return gaps_.extend; }

  [[nodiscard]] int score(std::uint8_t a, std::uint8_t b) const noexcept {
    return table_[a * letters_.size() + b];
  }
  // Row-major alphabet_size()^2 table, the layout kernels copy.
  [[nodiscard]] std::span<const std::int8_t> table() const noexcept { return table_; }
  [[nodiscard]] int max_score() const noexcept { return max_score_; }
  [[nodiscard]] int min_score() const noexcept { return min_score_; }

  // The code of a letter (either case), or kNotInAlphabet.
  [[nodiscard]] std::uint8_t code(char letter) const noexcept {
    return codes_[static_cast<unsigned char>(letter)];
  }
  [[nodiscard]] char letter(std::uint8_t code) const noexcept { return letters_[code]; }

  // Appends the codes of `sequence` to `codes`. On a letter outside the
  // alphabet, stops, leaves `codes` as it was and reports that letter.
  [[nodiscard]] EncodeStatus encode(std::string_view sequence,
                                    std::vector<std::uint8_t>& codes) const;
  // Same, but throws seqfuse::Error "letter 'J' is not in matrix blosum62,
  // record 'sp|P1' position 18" (1-based position).
  void encode_or_throw(std::string_view sequence, std::string_view record_name,
                       std::vector<std::uint8_t>& codes) const;
  // Writes the codes of `letters` to out[0, letters.size()); false when any
  // letter is outside the alphabet (what was written then is meaningless).
  [[nodiscard]] bool translate(std::string_view letters, std::uint8_t* out) const noexcept;

 private:
  std::string name_;
  std::string letters_;
  std::vector<std::int8_t> table_;
  std::array<std::uint8_t, 256> codes_{};
  GapPenalties gaps_;
  int max_score_ = 0;
  int min_score_ = 0;
};

// Throws UsageError unless 0 <= extend <= open <= 10000. open >= extend is
// what makes a gap of length k cost open + (k - 1) * extend under the Gotoh
// recurrence (a cheaper open would let two adjacent gaps undercut one long gap).
void validate_gaps(GapPenalties gaps);

// Many sequences encoded into one flat buffer, so engines index them without
// copying per pair.
class EncodedSequences {
 public:
  explicit EncodedSequences(const ScoringScheme& scheme) : scheme_(&scheme) {}

  // A set over codes held elsewhere (a mapped search database, search_db.hpp),
  // so a search hands the engines the file's bytes without a copy. `codes`
  // and `offsets` (size() + 1 entries, offsets[0] == 0, ascending, the last
  // codes.size()) must outlive the set; appending to it throws.
  [[nodiscard]] static EncodedSequences external(const ScoringScheme& scheme, Codes codes,
                                                 std::span<const std::uint64_t> offsets);

  // Room for `sequences` more sequences of `residues` in all: appending a
  // million records otherwise regrows (and copies) both buffers many times.
  void reserve(std::size_t residues, std::size_t sequences);
  // Throws seqfuse::Error naming the record on a letter outside the alphabet.
  void append(std::string_view sequence, std::string_view record_name);
  // Appends every record of a flat batch (record i is bases[offsets[i] -
  // offsets[0], offsets[i + 1] - offsets[0])), translated on `threads`
  // threads. On a letter outside the alphabet it throws what append() would
  // for the first such record, naming it through name_of(i), and appends
  // nothing.
  void append_all(std::string_view bases, std::span<const std::uint64_t> offsets,
                  const std::function<std::string_view(std::size_t)>& name_of, unsigned threads);
  // Appends a sequence already encoded for this scheme (another set's).
  void append_codes(Codes codes);

  [[nodiscard]] std::size_t size() const noexcept { return offsets().size() - 1; }
  [[nodiscard]] Codes operator[](std::size_t i) const noexcept {
    const std::span<const std::uint64_t> o = offsets();
    return flat_codes().subspan(o[i], o[i + 1] - o[i]);
  }
  // One view per sequence, the form engines take. Valid until the next append.
  [[nodiscard]] std::vector<Codes> views() const;
  // Every sequence's codes back to back, and where each starts (size() + 1
  // entries): the layout the GPU engine uploads in one copy.
  [[nodiscard]] Codes flat_codes() const noexcept {
    return external_ ? external_codes_ : Codes(codes_);
  }
  [[nodiscard]] std::span<const std::uint64_t> offsets() const noexcept {
    return external_ ? external_offsets_ : std::span<const std::uint64_t>(offsets_);
  }

 private:
  const ScoringScheme* scheme_;
  // Not zero-filled by resize: append_all's workers write every code.
  std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>> codes_;
  std::vector<std::uint64_t> offsets_{0};
  // external(): the codes and offsets of another owner, used instead.
  bool external_ = false;
  Codes external_codes_;
  std::span<const std::uint64_t> external_offsets_;
};

}  // namespace seqfuse::align
