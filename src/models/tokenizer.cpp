#include "models/tokenizer.hpp"

#include <utility>

namespace seqfuse::models {
namespace {

// clang-format off
constexpr std::array<std::string_view, kEsmVocabularySize> kVocabulary = {
    "<cls>", "<pad>", "<eos>", "<unk>",
    "L", "A", "G", "V", "S", "E", "R", "T", "I", "D", "P", "K", "Q", "N", "F", "Y", "M", "H",
    "W", "C", "X", "B", "U", "Z", "O", ".", "-",
    "<null_1>", "<mask>"};
// clang-format on

// Letter -> token for the single-letter entries of the vocabulary.
struct LetterTable {
  std::array<std::int32_t, 256> token{};
  constexpr LetterTable() {
    for (auto& t : token) t = kUnknownToken;
    for (std::size_t id = 0; id < kVocabulary.size(); ++id) {
      const std::string_view text = kVocabulary[id];
      if (text.size() != 1) continue;
      const auto upper = static_cast<unsigned char>(text[0]);
      token[upper] = static_cast<std::int32_t>(id);
      if (upper >= 'A' && upper <= 'Z') token[upper + ('a' - 'A')] = static_cast<std::int32_t>(id);
    }
  }
};
constexpr LetterTable kLetters;

}  // namespace

const std::array<std::string_view, kEsmVocabularySize>& esm_vocabulary() {
  return kVocabulary;
}

std::int32_t residue_token(char letter) noexcept {
  return kLetters.token[static_cast<unsigned char>(letter)];
}

ResidueTokenizer::ResidueTokenizer(std::int32_t first, std::int32_t last, std::int32_t unknown,
                                   std::string alphabet, std::string unknown_text)
    : first_(first),
      last_(last),
      unknown_(unknown),
      alphabet_(std::move(alphabet)),
      unknown_text_(std::move(unknown_text)) {
  token_.fill(unknown);
}

const ResidueTokenizer& esm_tokenizer() {
  static const ResidueTokenizer tokenizer = [] {
    ResidueTokenizer t(kClsToken, kEosToken, kUnknownToken, "ESM-2's alphabet", "<unk>");
    for (unsigned c = 0; c < 256; ++c)
      t.set_letter(static_cast<unsigned char>(c), kLetters.token[c]);
    return t;
  }();
  return tokenizer;
}

TokenizedProtein tokenize_protein(std::string_view sequence, std::size_t max_residues) {
  return esm_tokenizer().tokenize(sequence, max_residues);
}

TokenizedProtein ResidueTokenizer::tokenize(std::string_view sequence,
                                            std::size_t max_residues) const {
  TokenizedProtein out;
  out.truncated = sequence.size() > max_residues;
  if (out.truncated) sequence = sequence.substr(0, max_residues);
  out.ids.reserve(sequence.size() + 2);
  out.ids.push_back(first_);
  for (char c : sequence) {
    const std::int32_t id = token(c);
    if (id == unknown_) {
      if (merge_unknown_ && out.ids.size() > 1 && out.ids.back() == unknown_) continue;
      ++out.unknown;
    }
    out.ids.push_back(id);
  }
  out.residues = out.ids.size() - 1;
  out.ids.push_back(last_);
  return out;
}

}  // namespace seqfuse::models
