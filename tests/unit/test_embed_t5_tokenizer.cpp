// ProtT5 (the t5 family): the family dispatch of config.json, the config's
// fields and refusals, the tokenizer from spiece.model (through
// libsentencepiece) or tokenizer.json as RostLab applies T5Tokenizer, and
// the exact relative position buckets against transformers' float formula.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/regular_file.hpp"
#include "models/model_family.hpp"
#include "models/t5_config.hpp"
#include "models/t5_math.hpp"
#include "models/t5_tokenizer.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;
using Catch::Matchers::Contains;

namespace {

// ProtT5's pieces (tests/data/embed/t5_spiece.model, scripts/make-t5-spiece.py).
const std::string kResidues = "ALGVSREDTIPKFQNYMHWCXBOUZ";
constexpr std::int32_t kPad = 0, kEos = 1, kUnk = 2;

std::int32_t id_of(char residue) {
  return static_cast<std::int32_t>(kResidues.find(residue)) + 3;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string spiece_bytes() {
  return seqfuse::read_regular_file((embed_data_dir() / "t5_spiece.model").string(), "spiece");
}

// tokenizer.json as T5TokenizerFast saves ProtT5's: a Unigram vocab in id
// order, the extra ids as added tokens.
std::string tokenizer_json() {
  nlohmann::json vocab = nlohmann::json::array({{"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}});
  for (std::size_t i = 0; i < kResidues.size(); ++i)
    vocab.push_back({"\u2581" + std::string(1, kResidues[i]), -1.0 - 0.1 * double(i)});
  nlohmann::json doc;
  doc["model"] = {{"type", "Unigram"}, {"unk_id", 2}, {"vocab", vocab}};
  doc["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\u2581"}};
  return doc.dump();
}

}  // namespace

TEST_CASE("embed t5: spiece.model tokenizer as RostLab's T5Tokenizer", "[embed][t5]") {
  const ResidueTokenizer tokenizer =
      t5_tokenizer_from_spiece(spiece_bytes(), 128, "'spiece.model'");
  const auto x = id_of('X');
  SECTION("residues then </s>, no leading token (a placeholder slot); UZOB read as X") {
    const TokenizedProtein p = tokenizer.tokenize("MKUZOBL", 1022);
    CHECK(p.ids ==
          std::vector<std::int32_t>{kPad, id_of('M'), id_of('K'), x, x, x, x, id_of('L'), kEos});
    CHECK(p.residues == 7);
    CHECK(p.unknown == 0);
  }
  SECTION("lower case reads as upper case (uzob too)") {
    CHECK(tokenizer.tokenize("mkuzobl", 1022).ids == tokenizer.tokenize("MKUZOBL", 1022).ids);
  }
  SECTION("a run of letters without a piece is one <unk>, as SentencePiece reads it") {
    const TokenizedProtein p = tokenizer.tokenize("MJ*KLJ", 1022);
    CHECK(p.ids ==
          std::vector<std::int32_t>{kPad, id_of('M'), kUnk, id_of('K'), id_of('L'), kUnk, kEos});
    CHECK(p.residues == 5);
    CHECK(p.unknown == 2);
    const TokenizedProtein all = tokenizer.tokenize("JJJ", 1022);
    CHECK(all.ids == std::vector<std::int32_t>{kPad, kUnk, kEos});
    CHECK(all.unknown == all.residues);  // embed refuses it: every residue unknown
  }
  SECTION("--max-length cuts letters") {
    const TokenizedProtein p = tokenizer.tokenize("MKLAGV", 4);
    CHECK(p.truncated);
    CHECK(p.ids.size() == 6);
  }
  SECTION("tokenizer.json gives the same ids") {
    const ResidueTokenizer json = t5_tokenizer_from_json(tokenizer_json(), 128, "'t.json'");
    for (const char* s : {"MKUZOBL", "mj*klj", "ACDEFGHIKLMNPQRSTVWY", "..-X"})
      CHECK(json.tokenize(s, 1022).ids == tokenizer.tokenize(s, 1022).ids);
  }
}

TEST_CASE("embed t5: tokenizers that do not fit the model are refused", "[embed][t5]") {
  SECTION("ids beyond the embedding table") {
    CHECK_THAT(error_of([] { (void)t5_tokenizer_from_spiece(spiece_bytes(), 20, "'s.model'"); }),
               Contains("'s.model': token 23 ('▁X') is beyond the model's embedding table of 20 "
                        "rows (config.json's vocab_size): not this checkpoint's tokenizer"));
    CHECK_THAT(error_of([] { (void)t5_tokenizer_from_json(tokenizer_json(), 2, "'t.json'"); }),
               Contains("'t.json': token 2 ('<unk>') is beyond the model's embedding table"));
  }
  SECTION("not a SentencePiece model") {
    CHECK_THAT(error_of([] { (void)t5_tokenizer_from_spiece("not a model", 128, "'s.model'"); }),
               Contains("'s.model' is not a SentencePiece model"));
  }
  SECTION("tokenizer.json of another kind") {
    CHECK_THAT(error_of([] {
                 (void)t5_tokenizer_from_json(R"({"model": {"type": "WordPiece"}})", 128, "'t'");
               }),
               Contains("'t' is not a Unigram tokenizer"));
    nlohmann::json no_eos = nlohmann::json::parse(tokenizer_json());
    no_eos["model"]["vocab"][1][0] = "<eos>";
    CHECK_THAT(error_of([&] { (void)t5_tokenizer_from_json(no_eos.dump(), 128, "'t'"); }),
               Contains("'t' has no </s> piece"));
  }
  SECTION("a folder without spiece.model or tokenizer.json; spiece.model is read first") {
    const seqfuse::test::TempDir dir;
    CHECK_THAT(error_of([&] { (void)load_t5_tokenizer(dir.path(), 128); }),
               Contains("no spiece.model (nor tokenizer.json) in '" + dir.path().string() + "'"));
    std::ofstream(dir.path() / "tokenizer.json") << tokenizer_json();
    CHECK(load_t5_tokenizer(dir.path(), 128).tokenize("MK", 9).ids.size() == 4);
    std::ofstream(dir.path() / "spiece.model") << "garbage";
    CHECK_THAT(error_of([&] { (void)load_t5_tokenizer(dir.path(), 128); }),
               Contains("spiece.model' is not a SentencePiece model"));
  }
}

TEST_CASE("embed t5: config.json picks the family; the config's refusals", "[embed][t5]") {
  CHECK(family_from_config(R"({"model_type": "t5"})", "c") == ModelFamily::t5);
  CHECK(family_from_config(R"({"architectures": ["T5EncoderModel"]})", "c") == ModelFamily::t5);
  CHECK(std::string(family_name(ModelFamily::t5)) == "t5");

  // Rostlab/prot_t5_xl_uniref50's numbers.
  const std::string good = R"({"model_type": "t5", "vocab_size": 128, "d_model": 1024,
    "d_kv": 128, "num_heads": 32, "d_ff": 16384, "num_layers": 24, "num_decoder_layers": 24,
    "relative_attention_num_buckets": 32, "layer_norm_epsilon": 1e-06,
    "feed_forward_proj": "relu", "torch_dtype": "float32"})";
  const T5Config c = parse_t5_config(good, "c");
  CHECK(c.inner_dim() == 4096);
  CHECK(c.relative_attention_max_distance == 128);  // T5Config's default
  CHECK(c.feed_forward == T5FeedForward::relu);
  CHECK(c.layer_norm_epsilon == 1e-6);
  CHECK(c.dtype == "float32");
  const auto with = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json config = nlohmann::json::parse(good);
    if (value.is_null())
      config.erase(key);
    else
      config[key] = value;
    return config.dump();
  };
  CHECK(parse_t5_config(with("feed_forward_proj", "gated-gelu"), "c").feed_forward ==
        T5FeedForward::gated_gelu);
  CHECK(parse_t5_config(with("feed_forward_proj", nullptr), "c").feed_forward ==
        T5FeedForward::relu);
  const auto error = [&](const char* key, const nlohmann::json& value) {
    return error_of([&] { (void)parse_t5_config(with(key, value), "'c.json'"); });
  };
  CHECK_THAT(error("feed_forward_proj", "gated-silu"),
             Contains("'c.json': feed_forward_proj is 'gated-silu'; seqfuse computes T5 encoders "
                      "with 'relu' or 'gated-gelu' only"));
  CHECK_THAT(error("d_kv", nullptr), Contains("'c.json' has no d_kv"));
  CHECK_THAT(error("relative_attention_num_buckets", 2), Contains("is too few"));
  CHECK_THAT(error("relative_attention_max_distance", 8), Contains("must exceed the exact"));
  CHECK_THAT(error("model_type", "bert"), Contains("describes a 'bert' model, not T5"));
}

TEST_CASE("embed t5: relative position buckets", "[embed][t5]") {
  // transformers' _relative_position_bucket(bidirectional=True), in double.
  const auto formula = [](long relative, int num_buckets, int max_distance, bool* edge) {
    const int half = num_buckets / 2, exact = half / 2;
    int bucket = relative > 0 ? half : 0;
    const long n = std::labs(relative);
    *edge = false;
    if (n < exact) return bucket + static_cast<int>(n);
    const double large =
        std::log(double(n) / exact) / std::log(double(max_distance) / exact) * (half - exact);
    *edge = std::abs(large - std::round(large)) < 1e-9;  // float may land either side
    return bucket + std::min(exact + static_cast<int>(large), half - 1);
  };
  // ProtT5's 32 buckets and 128: the T5 paper's table.
  CHECK(t5_relative_bucket(0, 32, 128) == 0);
  CHECK(t5_relative_bucket(1, 32, 128) == 17);
  CHECK(t5_relative_bucket(-1, 32, 128) == 1);
  CHECK(t5_relative_bucket(-7, 32, 128) == 7);
  CHECK(t5_relative_bucket(8, 32, 128) == 24);
  CHECK(t5_relative_bucket(-12, 32, 128) == 9);
  CHECK(t5_relative_bucket(16, 32, 128) == 26);  // log(2)/log(16)*8 = 2 exactly
  CHECK(t5_relative_bucket(-64, 32, 128) == 14);
  CHECK(t5_relative_bucket(127, 32, 128) == 31);
  CHECK(t5_relative_bucket(-5000, 32, 128) == 15);
  std::size_t compared = 0, edges = 0;
  for (const int buckets : {8, 12, 32, 33, 64, 128})
    for (const int distance : {20, 64, 128, 200, 1000})
      for (long r = -1100; r <= 1100; ++r) {
        if (distance <= buckets / 4) continue;
        bool edge = false;
        const int want = formula(r, buckets, distance, &edge);
        const int got = t5_relative_bucket(r, buckets, distance);
        if (edge) {  // within one of the formula, never past the half's last bucket
          ++edges;
          CHECK(std::abs(got - want) <= 1);
          continue;
        }
        ++compared;
        if (got != want) FAIL_CHECK(r << " " << buckets << " " << distance << ": " << got);
      }
  CHECK(compared > 50000);
  CHECK(edges > 0);

  // The bias table by offset: entry (h, j - i + tokens - 1) = table[bucket(j - i)][h].
  const std::vector<float> table = [] {
    std::vector<float> t(32 * 2);
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = float(i);
    return t;
  }();
  const std::vector<float> bias = t5_position_bias(table, 2, 32, 128, 200);
  REQUIRE(bias.size() == 2 * 399);
  for (long offset = -199; offset <= 199; ++offset)
    for (std::size_t h = 0; h < 2; ++h)
      CHECK(bias[h * 399 + std::size_t(offset + 199)] ==
            table[std::size_t(t5_relative_bucket(offset, 32, 128)) * 2 + h]);
}
