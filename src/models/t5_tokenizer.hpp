// ProtT5's tokenizer from the checkpoint's spiece.model, read by Debian's
// SentencePiece library (libsentencepiece), or, in a folder without one,
// from its tokenizer.json (a Unigram model, as transformers' T5TokenizerFast
// saves it). Applied as RostLab's scripts apply T5Tokenizer to
// " ".join(re.sub(r"[UZOB]", "X", sequence)): each residue its "▁A" piece,
// U/Z/O/B read as X, letters upper-cased first (seqfuse's convention), `</s>`
// appended, no leading token. A run of letters without a piece is ONE
// <unk>, as SentencePiece reads it ("MJ*K" -> ▁M <unk> ▁K </s>); seqfuse's
// per-token rows are then the tokens, not the letters.
//
// seqfuse's sequences carry a first special token for every family
// (engine.hpp); T5 has none, so its slot holds the pad id as a placeholder
// that the T5 engine does not compute (cpu_t5_forward.hpp): rows, pooling
// and writers stay those of ESM-2 and BERT.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "models/tokenizer.hpp"

namespace seqfuse::models {

// From a serialized SentencePiece model (spiece.model's bytes). Every letter
// seqfuse maps one by one is checked against SentencePiece's own encoding
// of all printable letters, spaced as RostLab does; a model that reads them
// otherwise (pieces of several residues, no "▁A" pieces) is refused, as is a
// token id beyond `embedding_rows` (config.json's vocab_size). `where` names
// the file in errors. Throws seqfuse::Error.
[[nodiscard]] ResidueTokenizer t5_tokenizer_from_spiece(std::string_view serialized,
                                                        std::size_t embedding_rows,
                                                        const std::string& where);

// From tokenizer.json's text: model.type "Unigram", its vocab ([piece,
// score] pairs, id = position), unk_id, and `</s>`. Same checks as above
// except SentencePiece's own encoding.
[[nodiscard]] ResidueTokenizer t5_tokenizer_from_json(std::string_view json_text,
                                                      std::size_t embedding_rows,
                                                      const std::string& where);

// `folder`/spiece.model, else `folder`/tokenizer.json; neither: one line
// naming the folder.
[[nodiscard]] ResidueTokenizer load_t5_tokenizer(const std::filesystem::path& folder,
                                                 std::size_t embedding_rows);

}  // namespace seqfuse::models
