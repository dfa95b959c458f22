#include "models/t5_tokenizer.hpp"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/config_json.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

constexpr std::string_view kAlphabet = "the model's pieces (spiece.model)";
constexpr std::string_view kUnknownText = "<unk> (a run of such letters as one <unk>)";

// The letter RostLab's scripts hand the tokenizer for a sequence byte:
// upper case, re.sub(r"[UZOB]", "X", ...).
char rostlab_letter(unsigned byte) {
  char letter = static_cast<char>(byte);
  if (letter >= 'a' && letter <= 'z') letter = static_cast<char>(letter - 'a' + 'A');
  if (letter == 'U' || letter == 'Z' || letter == 'O' || letter == 'B') letter = 'X';
  return letter;
}

// Printable ASCII but the space: the bytes a sequence letter can be. Others
// (controls, non-ASCII) stay unknown, one token per run as any unknown.
bool printable(unsigned byte) {
  return byte > 32 && byte < 127;
}

void check_id(std::int32_t id, const std::string& piece, std::size_t rows,
              const std::string& where) {
  if (id < 0 || static_cast<std::size_t>(id) >= rows)
    throw Error(where + ": token " + std::to_string(id) + " ('" + piece +
                "') is beyond the model's embedding table of " + std::to_string(rows) +
                " rows (config.json's vocab_size): not this checkpoint's tokenizer");
}

ResidueTokenizer make_tokenizer(std::int32_t placeholder, std::int32_t eos, std::int32_t unk,
                                const std::string& alphabet) {
  ResidueTokenizer tokenizer(placeholder, eos, unk, alphabet, std::string(kUnknownText));
  tokenizer.merge_unknown_runs(true);
  return tokenizer;
}

}  // namespace

ResidueTokenizer t5_tokenizer_from_spiece(std::string_view serialized, std::size_t rows,
                                          const std::string& where) {
  sentencepiece::SentencePieceProcessor sp;
  if (const auto status = sp.LoadFromSerializedProto(serialized); !status.ok())
    throw Error(where + " is not a SentencePiece model (" + status.ToString() + ")");
  const std::int32_t unk = sp.unk_id();
  std::int32_t eos = sp.eos_id();
  if (eos < 0) eos = sp.PieceToId("</s>");
  if (eos < 0 || eos == unk) throw Error(where + " has no </s> piece: not a T5 tokenizer");
  const std::int32_t placeholder = sp.pad_id() >= 0 ? sp.pad_id() : unk;
  check_id(unk, "<unk>", rows, where);
  check_id(eos, "</s>", rows, where);
  check_id(placeholder, sp.IdToPiece(placeholder), rows, where);

  ResidueTokenizer tokenizer = make_tokenizer(placeholder, eos, unk, std::string(kAlphabet));
  std::string letters;  // every printable byte's letter, for the check below
  for (unsigned byte = 0; byte < 256; ++byte) {
    if (!printable(byte)) continue;
    const char letter = rostlab_letter(byte);
    letters += letter;
    const std::vector<int> ids = sp.EncodeAsIds(std::string(1, letter));
    if (ids.size() != 1 || ids[0] == unk) continue;
    check_id(ids[0], sp.IdToPiece(ids[0]), rows, where);
    tokenizer.set_letter(static_cast<unsigned char>(byte), ids[0]);
  }
  // What RostLab's scripts would get for all of them at once, spaced.
  std::string spaced;
  for (const char letter : letters) {
    if (!spaced.empty()) spaced += ' ';
    spaced += letter;
  }
  std::vector<int> expected = sp.EncodeAsIds(spaced);
  expected.push_back(eos);
  const TokenizedProtein mine = tokenizer.tokenize(letters, letters.size());
  if (expected.size() + 1 != mine.ids.size() ||
      !std::equal(expected.begin(), expected.end(), mine.ids.begin() + 1))
    throw Error(where + " does not read residues one piece each, as ProtT5's spiece.model does " +
                "('▁A', '▁L', ...): seqfuse cannot tokenize proteins with it");
  return tokenizer;
}

ResidueTokenizer t5_tokenizer_from_json(std::string_view json_text, std::size_t rows,
                                        const std::string& where) {
  const nlohmann::json doc = config_json::parse_object(json_text, where);
  if (!doc.contains("model") || !doc["model"].is_object() ||
      config_json::string_or(doc["model"], "type", "") != "Unigram" ||
      !doc["model"].contains("vocab") || !doc["model"]["vocab"].is_array())
    throw Error(where + " is not a Unigram tokenizer (model.type \"Unigram\" with a vocab), " +
                "as T5's tokenizer.json is");
  const nlohmann::json& model = doc["model"];
  std::vector<std::string> pieces;
  for (const auto& entry : model["vocab"]) {
    if (!entry.is_array() || entry.empty() || !entry[0].is_string())
      throw Error(where + ": model.vocab holds " + entry.dump() + ", not a [piece, score] pair");
    pieces.push_back(entry[0].get<std::string>());
  }
  const auto find = [&](const std::string& piece) -> std::int32_t {
    for (std::size_t i = 0; i < pieces.size(); ++i)
      if (pieces[i] == piece) return static_cast<std::int32_t>(i);
    return -1;
  };
  if (!model.contains("unk_id") || !model["unk_id"].is_number_integer())
    throw Error(where + " has no model.unk_id: T5's Unigram tokenizer names its <unk>");
  const auto unk = model["unk_id"].get<std::int32_t>();
  if (unk < 0 || static_cast<std::size_t>(unk) >= pieces.size())
    throw Error(where + ": model.unk_id " + std::to_string(unk) + " is not a piece of its vocab");
  const std::int32_t eos = find("</s>");
  if (eos < 0) throw Error(where + " has no </s> piece: not a T5 tokenizer");
  const std::int32_t pad = find("<pad>");
  const std::int32_t placeholder = pad >= 0 ? pad : unk;
  check_id(unk, pieces[static_cast<std::size_t>(unk)], rows, where);
  check_id(eos, "</s>", rows, where);
  check_id(placeholder, pieces[static_cast<std::size_t>(placeholder)], rows, where);

  ResidueTokenizer tokenizer =
      make_tokenizer(placeholder, eos, unk, "the model's pieces (tokenizer.json)");
  std::size_t residues = 0;
  for (unsigned byte = 0; byte < 256; ++byte) {
    if (!printable(byte)) continue;
    const std::int32_t id = find("\u2581" + std::string(1, rostlab_letter(byte)));
    if (id < 0 || id == unk) continue;
    check_id(id, pieces[static_cast<std::size_t>(id)], rows, where);
    tokenizer.set_letter(static_cast<unsigned char>(byte), id);
    ++residues;
  }
  if (residues == 0)
    throw Error(where + " has no residue pieces ('▁A', '▁L', ...): not ProtT5's tokenizer");
  return tokenizer;
}

ResidueTokenizer load_t5_tokenizer(const std::filesystem::path& folder, std::size_t rows) {
  namespace fs = std::filesystem;
  const fs::path spiece = folder / "spiece.model";
  if (fs::exists(spiece)) {
    register_input(spiece.string());
    return t5_tokenizer_from_spiece(read_regular_file(spiece.string(), "SentencePiece model"), rows,
                                    in_quotes(spiece.string()));
  }
  const fs::path json = folder / "tokenizer.json";
  if (fs::exists(json)) {
    register_input(json.string());
    return t5_tokenizer_from_json(read_regular_file(json.string(), "tokenizer"), rows,
                                  in_quotes(json.string()));
  }
  throw Error(
      "no spiece.model (nor tokenizer.json) in " + in_quotes(folder.string()) +
      ": a T5 checkpoint's tokenizer is its SentencePiece model (ProtT5 ships spiece.model)");
}

}  // namespace seqfuse::models
