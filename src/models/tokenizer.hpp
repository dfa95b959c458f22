// The protein tokenizer of every model family: a first special token
// (ESM-2's <cls>, BERT's [CLS]), one token per residue, a last one (<eos>,
// [SEP]). Letters are uppercased first (seqfuse's convention for every
// subcommand; Hugging Face's tokenizers map lowercase letters to <unk>), and
// letters outside the alphabet become the unknown token, as in EsmTokenizer
// and BertTokenizer. ESM-2's alphabet is built in; BERT's comes from the
// checkpoint's vocab.txt (bert_tokenizer.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seqfuse::models {

inline constexpr int kEsmVocabularySize = 33;
inline constexpr std::int32_t kClsToken = 0;
inline constexpr std::int32_t kPadToken = 1;
inline constexpr std::int32_t kEosToken = 2;
inline constexpr std::int32_t kUnknownToken = 3;
inline constexpr std::int32_t kMaskToken = 32;

// Token strings by id: <cls> <pad> <eos> <unk> L A G ... - <null_1> <mask>.
[[nodiscard]] const std::array<std::string_view, kEsmVocabularySize>& esm_vocabulary();

// The token of one sequence letter (case-insensitive); kUnknownToken when
// the alphabet lacks it.
[[nodiscard]] std::int32_t residue_token(char letter) noexcept;

struct TokenizedProtein {
  std::vector<std::int32_t> ids;  // <cls>, residues, <eos>
  std::size_t residues = 0;       // residue tokens, after truncation (letters, unless runs of
                                  // unknown letters merge: merge_unknown_runs)
  std::size_t unknown = 0;        // residue tokens that are the unknown token
  bool truncated = false;         // the sequence had more than max_residues letters
};

// Letter -> token table with the special tokens around a sequence.
class ResidueTokenizer {
 public:
  // Every byte maps to `unknown` until set.
  ResidueTokenizer(std::int32_t first, std::int32_t last, std::int32_t unknown,
                   std::string alphabet, std::string unknown_text);

  // The token of letter `letter` (an exact byte; see set_letter).
  void set_letter(unsigned char letter, std::int32_t token) noexcept { token_[letter] = token; }
  [[nodiscard]] std::int32_t token(char letter) const noexcept {
    return token_[static_cast<unsigned char>(letter)];
  }
  [[nodiscard]] std::int32_t unknown() const noexcept { return unknown_; }
  // SentencePiece's reading (ProtT5): a run of letters outside the alphabet
  // is one unknown token, not one per letter ("MJ*K" -> M <unk> K).
  void merge_unknown_runs(bool merge) noexcept { merge_unknown_ = merge; }
  [[nodiscard]] bool merges_unknown_runs() const noexcept { return merge_unknown_; }
  // "ESM-2's alphabet", "<unk>": for messages about unknown letters.
  [[nodiscard]] const std::string& alphabet() const noexcept { return alphabet_; }
  [[nodiscard]] const std::string& unknown_text() const noexcept { return unknown_text_; }

  // Keeps the first `max_residues` letters (esm-extract's truncation).
  [[nodiscard]] TokenizedProtein tokenize(std::string_view sequence,
                                          std::size_t max_residues) const;

 private:
  std::array<std::int32_t, 256> token_{};
  std::int32_t first_, last_, unknown_;
  bool merge_unknown_ = false;
  std::string alphabet_, unknown_text_;
};

// ESM-2's tokenizer (residue_token's table, <cls> and <eos>).
[[nodiscard]] const ResidueTokenizer& esm_tokenizer();

// esm_tokenizer().tokenize(sequence, max_residues).
[[nodiscard]] TokenizedProtein tokenize_protein(std::string_view sequence,
                                                std::size_t max_residues);

}  // namespace seqfuse::models
