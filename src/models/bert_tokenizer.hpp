// ProtBERT's tokenizer from the checkpoint's vocab.txt (one token per line,
// id = line number, as BertTokenizer's load_vocab reads it), applied as
// RostLab's scripts apply BertTokenizer(do_lower_case=False) to
// " ".join(re.sub(r"[UZOB]", "X", sequence)): every residue one token,
// U/Z/O/B read as X, a letter the vocabulary lacks as [UNK], [CLS] first and
// [SEP] last. Letters are upper-cased first, as for ESM-2 (BertTokenizer
// would read a lower-case letter as [UNK]).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "models/tokenizer.hpp"

namespace seqfuse::models {

// The tokens of `folder`/vocab.txt in line order. Throws seqfuse::Error when
// the file is missing (naming the folder) or unreadable.
[[nodiscard]] std::vector<std::string> read_bert_vocabulary(const std::filesystem::path& folder);

// The tokenizer over `vocabulary`; `embedding_rows` is the word-embedding
// table's row count (config.json's vocab_size), which the vocabulary must
// equal. `where` names vocab.txt in errors: a size mismatch, or [CLS],
// [SEP] or [UNK] missing.
[[nodiscard]] ResidueTokenizer bert_tokenizer(const std::vector<std::string>& vocabulary,
                                              std::size_t embedding_rows, const std::string& where);

}  // namespace seqfuse::models
