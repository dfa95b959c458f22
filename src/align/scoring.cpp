#include "align/scoring.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>

#include "align/builtin_matrices.hpp"
#include "align/matrix_file.hpp"
#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel.hpp"

namespace seqfuse::align {
namespace {

constexpr int kMaxGapPenalty = 10000;
// N, then the IUPAC ambiguity codes; each gets its own code after A C G T so
// that CIGAR '=' (same letter) stays meaningful for them.
constexpr std::string_view kDnaLetters = "ACGTNRYSWKMBDHV";
constexpr std::size_t kUnambiguousBases = 4;

std::string printable(char letter) {
  if (std::isprint(static_cast<unsigned char>(letter))) return std::string(1, letter);
  constexpr char kHex[] = "0123456789abcdef";
  const auto byte = static_cast<unsigned char>(letter);
  return std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
}

}  // namespace

void validate_gaps(GapPenalties gaps) {
  if (gaps.open < 0 || gaps.extend < 0) {
    throw UsageError(
        "gap penalties must be non-negative (a gap of length k costs open + (k-1) * "
        "extend), got open " +
        std::to_string(gaps.open) + " extend " + std::to_string(gaps.extend));
  }
  if (gaps.open > kMaxGapPenalty || gaps.extend > kMaxGapPenalty) {
    throw UsageError("gap penalties above " + std::to_string(kMaxGapPenalty) +
                     " are not supported, got open " + std::to_string(gaps.open) + " extend " +
                     std::to_string(gaps.extend));
  }
  if (gaps.open < gaps.extend) {
    throw UsageError("gap open " + std::to_string(gaps.open) + " is smaller than gap extend " +
                     std::to_string(gaps.extend) + "; open must be >= extend");
  }
}

ScoringScheme::ScoringScheme(std::string name, std::string_view letters,
                             std::span<const int> scores, GapPenalties gaps)
    : name_(std::move(name)), gaps_(gaps) {
  validate_gaps(gaps);
  if (letters.empty() || letters.size() > kMaxAlphabet) {
    throw Error("matrix " + name_ + " has " + std::to_string(letters.size()) + " letters; 1 to " +
                std::to_string(kMaxAlphabet) + " are supported");
  }
  if (scores.size() != letters.size() * letters.size()) {
    throw Error("matrix " + name_ + " has " + std::to_string(scores.size()) + " scores for " +
                std::to_string(letters.size()) + " letters");
  }
  codes_.fill(kNotInAlphabet);
  for (char raw : letters) {
    const auto upper = static_cast<char>(std::toupper(static_cast<unsigned char>(raw)));
    if (!std::isgraph(static_cast<unsigned char>(upper))) {
      throw Error("matrix " + name_ + " has the non-printable letter '" + printable(raw) + "'");
    }
    if (codes_[static_cast<unsigned char>(upper)] != kNotInAlphabet) {
      throw Error("matrix " + name_ + " has the letter '" + printable(upper) + "' twice");
    }
    const auto code = static_cast<std::uint8_t>(letters_.size());
    letters_.push_back(upper);
    codes_[static_cast<unsigned char>(upper)] = code;
    codes_[static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(upper)))] = code;
  }
  table_.reserve(scores.size());
  for (int value : scores) {
    if (value < -127 || value > 127) {
      throw Error("matrix " + name_ + " has the score " + std::to_string(value) +
                  ", outside -127..127");
    }
    table_.push_back(static_cast<std::int8_t>(value));
  }
  max_score_ = *std::max_element(table_.begin(), table_.end());
  min_score_ = *std::min_element(table_.begin(), table_.end());
}

ScoringScheme ScoringScheme::builtin(std::string_view matrix_name, GapPenalties gaps) {
  std::string lower(matrix_name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const BuiltinMatrix& matrix : builtin_matrices()) {
    if (matrix.name == lower) {
      const std::vector<int> scores(matrix.scores.begin(), matrix.scores.end());
      return ScoringScheme(std::string(matrix.name), matrix.letters, scores, gaps);
    }
  }
  std::string known;
  for (std::string_view name : builtin_names())
    known += (known.empty() ? "" : ", ") + std::string(name);
  throw UsageError("unknown matrix '" + std::string(matrix_name) + "' (built in: " + known + ")");
}

std::vector<std::string_view> ScoringScheme::builtin_names() {
  std::vector<std::string_view> names;
  for (const BuiltinMatrix& matrix : builtin_matrices()) names.push_back(matrix.name);
  return names;
}

ScoringScheme ScoringScheme::from_matrix_file(const std::string& path, GapPenalties gaps) {
  const MatrixTable table = read_ncbi_matrix_file(path);
  return ScoringScheme(path, table.letters, table.scores, gaps);
}

ScoringScheme ScoringScheme::named_or_file(const std::string& name_or_path, GapPenalties gaps) {
  const std::vector<std::string_view> names = builtin_names();
  std::string lower(name_or_path);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (std::find(names.begin(), names.end(), lower) != names.end()) {
    return builtin(lower, gaps);
  }
  std::error_code ignored;
  if (std::filesystem::exists(name_or_path, ignored)) return from_matrix_file(name_or_path, gaps);
  return builtin(name_or_path, gaps);  // throws "unknown matrix" listing the names
}

ScoringScheme ScoringScheme::match_mismatch(int match, int mismatch, GapPenalties gaps,
                                            AmbiguousBases ambiguous) {
  if (match < -127 || match > 127 || mismatch < -127 || mismatch > 127) {
    throw UsageError("match and mismatch scores must be within -127..127, got " +
                     std::to_string(match) + " and " + std::to_string(mismatch));
  }
  const std::size_t size = kDnaLetters.size();
  std::vector<int> scores(size * size);
  for (std::size_t a = 0; a < size; ++a) {
    for (std::size_t b = 0; b < size; ++b) {
      const bool both_plain = a < kUnambiguousBases && b < kUnambiguousBases;
      int value = mismatch;
      if (both_plain && a == b) value = match;
      if (!both_plain && ambiguous == AmbiguousBases::zero) value = 0;
      scores[a * size + b] = value;
    }
  }
  std::string name = "match " + std::to_string(match) + " mismatch " + std::to_string(mismatch);
  if (ambiguous == AmbiguousBases::zero) name += " (ambiguous bases 0)";
  return ScoringScheme(std::move(name), kDnaLetters, scores, gaps);
}

bool ScoringScheme::translate(std::string_view letters, std::uint8_t* out) const noexcept {
  // Branch-free; the rare bad letter is located by the caller afterwards.
  std::uint8_t seen = 0;
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const std::uint8_t code = codes_[static_cast<unsigned char>(letters[i])];
    out[i] = code;
    seen |= static_cast<std::uint8_t>(code == kNotInAlphabet);
  }
  return seen == 0;
}

EncodeStatus ScoringScheme::encode(std::string_view sequence,
                                   std::vector<std::uint8_t>& codes) const {
  const std::size_t old_size = codes.size();
  codes.resize(old_size + sequence.size());
  if (translate(sequence, codes.data() + old_size)) return {};
  codes.resize(old_size);
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    if (codes_[static_cast<unsigned char>(sequence[i])] == kNotInAlphabet) {
      return EncodeStatus{false, i, sequence[i]};
    }
  }
  return {};  // not reached
}

void ScoringScheme::encode_or_throw(std::string_view sequence, std::string_view record_name,
                                    std::vector<std::uint8_t>& codes) const {
  const EncodeStatus status = encode(sequence, codes);
  if (status.ok) return;
  throw Error("letter '" + printable(status.letter) + "' is not in matrix " + name_ + ", record '" +
              std::string(record_name) + "' position " + std::to_string(status.position + 1));
}

EncodedSequences EncodedSequences::external(const ScoringScheme& scheme, Codes codes,
                                            std::span<const std::uint64_t> offsets) {
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != codes.size())
    throw Error("internal: external codes and offsets disagree");
  EncodedSequences set(scheme);
  set.external_ = true;
  set.external_codes_ = codes;
  set.external_offsets_ = offsets;
  return set;
}

void EncodedSequences::reserve(std::size_t residues, std::size_t sequences) {
  if (external_) throw Error("internal: appending to external codes");
  codes_.reserve(codes_.size() + residues);
  offsets_.reserve(offsets_.size() + sequences);
}

void EncodedSequences::append(std::string_view sequence, std::string_view record_name) {
  const std::uint64_t bounds[2] = {0, sequence.size()};
  append_all(
      sequence, bounds, [record_name](std::size_t) { return record_name; }, 1);
}

void EncodedSequences::append_codes(Codes codes) {
  if (external_) throw Error("internal: appending to external codes");
  codes_.insert(codes_.end(), codes.begin(), codes.end());
  offsets_.push_back(codes_.size());
}

void EncodedSequences::append_all(std::string_view bases, std::span<const std::uint64_t> offsets,
                                  const std::function<std::string_view(std::size_t)>& name_of,
                                  unsigned threads) {
  if (external_) throw Error("internal: appending to external codes");
  const std::size_t records = offsets.empty() ? 0 : offsets.size() - 1;
  const std::uint64_t first = records ? offsets[0] : 0;
  const std::size_t old_codes = codes_.size();
  codes_.resize(old_codes + bases.size());
  advise_huge_pages(codes_.data() + old_codes, bases.size());  // before the workers write it
  // 4 MiB slices of letters: record boundaries do not matter to a lookup.
  constexpr std::size_t kSlice = std::size_t{4} << 20;
  std::atomic<bool> all_known{true};
  parallel_chunks(
      (bases.size() + kSlice - 1) / kSlice, 1, threads,
      [&](unsigned, std::size_t begin, std::size_t end) {
        const std::size_t from = begin * kSlice;
        const std::size_t to = std::min(bases.size(), end * kSlice);
        if (!scheme_->translate(bases.substr(from, to - from), codes_.data() + old_codes + from))
          all_known.store(false, std::memory_order_relaxed);
      });
  if (!all_known.load()) {
    codes_.resize(old_codes);
    // The first record in order with a bad letter throws, as append() does.
    for (std::size_t i = 0; i < records; ++i) {
      const std::string_view sequence =
          bases.substr(offsets[i] - first, offsets[i + 1] - offsets[i]);
      std::vector<std::uint8_t> scratch;
      scheme_->encode_or_throw(sequence, name_of(i), scratch);
    }
    throw Error("internal: a letter outside the alphabet was not found again");
  }
  offsets_.reserve(offsets_.size() + records);
  for (std::size_t i = 0; i < records; ++i) offsets_.push_back(old_codes + offsets[i + 1] - first);
}

std::vector<Codes> EncodedSequences::views() const {
  std::vector<Codes> result;
  result.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) result.push_back((*this)[i]);
  return result;
}

}  // namespace seqfuse::align
