// ESM-2's alphabet and the protein tokenizer: <cls>, one token per residue,
// <eos>. Letters are uppercased first (seqfuse's convention for every
// subcommand; Hugging Face's EsmTokenizer maps lowercase letters to <unk>),
// and letters outside the alphabet become <unk>, as in EsmTokenizer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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
  std::size_t residues = 0;       // after truncation
  std::size_t unknown = 0;        // residues read as <unk>
  bool truncated = false;         // the sequence had more than max_residues letters
};

// Keeps the first `max_residues` letters (esm-extract's truncation).
[[nodiscard]] TokenizedProtein tokenize_protein(std::string_view sequence,
                                                std::size_t max_residues);

}  // namespace seqfuse::models
