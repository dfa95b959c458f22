#include "models/bert_tokenizer.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

std::int32_t find_token(const std::vector<std::string>& vocabulary, const std::string& token) {
  // The last occurrence wins, as in BertTokenizer's dict built line by line.
  for (std::size_t i = vocabulary.size(); i-- > 0;)
    if (vocabulary[i] == token) return static_cast<std::int32_t>(i);
  return -1;
}

std::int32_t required_token(const std::vector<std::string>& vocabulary, const std::string& token,
                            const std::string& where) {
  const std::int32_t id = find_token(vocabulary, token);
  if (id < 0) throw Error(where + " has no " + token + " token: not a BERT vocabulary");
  return id;
}

}  // namespace

std::vector<std::string> read_bert_vocabulary(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / "vocab.txt";
  if (!std::filesystem::exists(path))
    throw Error("no vocab.txt in " + in_quotes(folder.string()) +
                ": a BERT checkpoint's tokenizer is its vocab.txt (one token per line)");
  register_input(path.string());
  const std::string text = read_regular_file(path.string(), "BERT vocabulary");
  std::vector<std::string> tokens;
  std::istringstream lines(text);
  std::string line;
  // Python's readlines(): a final newline ends the last token, it does not
  // start another. A '\r' of a CRLF file is dropped too.
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    tokens.push_back(line);
  }
  return tokens;
}

ResidueTokenizer bert_tokenizer(const std::vector<std::string>& vocabulary,
                                std::size_t embedding_rows, const std::string& where) {
  if (vocabulary.size() != embedding_rows)
    throw Error(where + " holds " + std::to_string(vocabulary.size()) +
                " tokens, but the model's word embeddings (config.json's vocab_size) have " +
                std::to_string(embedding_rows) + " rows: not this checkpoint's vocabulary");
  ResidueTokenizer tokenizer(
      required_token(vocabulary, "[CLS]", where), required_token(vocabulary, "[SEP]", where),
      required_token(vocabulary, "[UNK]", where), "the model's vocabulary (vocab.txt)", "[UNK]");
  for (unsigned byte = 1; byte < 256; ++byte) {
    char letter = static_cast<char>(byte);
    if (letter >= 'a' && letter <= 'z') letter = static_cast<char>(letter - 'a' + 'A');
    // RostLab: re.sub(r"[UZOB]", "X", sequence).
    if (letter == 'U' || letter == 'Z' || letter == 'O' || letter == 'B') letter = 'X';
    // A byte BertTokenizer would read as whitespace or drop (controls, DEL,
    // non-ASCII) stays [UNK]: seqfuse keeps one token per residue.
    if (byte <= 32 || byte >= 127) continue;
    const std::int32_t id = find_token(vocabulary, std::string(1, letter));
    if (id >= 0) tokenizer.set_letter(static_cast<unsigned char>(byte), id);
  }
  return tokenizer;
}

}  // namespace seqfuse::models
