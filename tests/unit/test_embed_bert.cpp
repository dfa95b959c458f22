// BERT protein models (ProtBERT): the family dispatch of config.json, the
// vocab.txt tokenizer as RostLab applies BertTokenizer, the config's
// refusals, the CPU engine against a plain double-precision BertModel
// written here, and against transformers' BertModel (float64 references of
// scripts/make-bert-fixtures.py) on every fixture.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <span>

#include "core/error.hpp"
#include "io/batch_reader.hpp"
#include "models/bert_config.hpp"
#include "models/bert_tokenizer.hpp"
#include "models/cpu_bert_forward.hpp"
#include "models/embed_job.hpp"
#include "models/model_family.hpp"
#include "models/protein_model.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;
using Catch::Matchers::Contains;

namespace {

const std::vector<std::string> kProtBertVocabulary = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "L", "A", "G", "V", "E", "S", "I", "K", "R", "D",
    "T",     "P",     "N",     "Q",     "F",      "Y", "M", "H", "C", "W", "X", "U", "B", "Z", "O"};

std::int32_t id_of(const std::string& token) {
  for (std::size_t i = 0; i < kProtBertVocabulary.size(); ++i)
    if (kProtBertVocabulary[i] == token) return static_cast<std::int32_t>(i);
  return -1;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("embed bert: vocab.txt tokenizer as RostLab's BertTokenizer", "[embed][bert]") {
  const ResidueTokenizer tokenizer = bert_tokenizer(kProtBertVocabulary, 30, "'vocab.txt'");
  const auto x = id_of("X"), unk = id_of("[UNK]");
  SECTION("[CLS] residues [SEP]; U, Z, O and B read as X (re.sub('[UZOB]', 'X', seq))") {
    const TokenizedProtein p = tokenizer.tokenize("MKUZOBL", 1022);
    CHECK(p.ids == std::vector<std::int32_t>{id_of("[CLS]"), id_of("M"), id_of("K"), x, x, x, x,
                                             id_of("L"), id_of("[SEP]")});
    CHECK(p.unknown == 0);
    CHECK(p.residues == 7);
  }
  SECTION("lower case reads as upper case (uzob too)") {
    CHECK(tokenizer.tokenize("mkuzobl", 1022).ids == tokenizer.tokenize("MKUZOBL", 1022).ids);
  }
  SECTION("letters and symbols outside the vocabulary are [UNK], one per residue") {
    const TokenizedProtein p = tokenizer.tokenize("MJ*.-1", 1022);
    CHECK(p.ids == std::vector<std::int32_t>{id_of("[CLS]"), id_of("M"), unk, unk, unk, unk, unk,
                                             id_of("[SEP]")});
    CHECK(p.unknown == 5);
  }
  SECTION("--max-length cuts") {
    const TokenizedProtein p = tokenizer.tokenize("MKLAGV", 4);
    CHECK(p.truncated);
    CHECK(p.ids.size() == 6);
  }
  SECTION("a vocabulary that does not match the embedding table is refused") {
    CHECK_THAT(error_of([] { (void)bert_tokenizer(kProtBertVocabulary, 31, "'v/vocab.txt'"); }),
               Contains("'v/vocab.txt' holds 30 tokens, but the model's word embeddings "
                        "(config.json's vocab_size) have 31 rows"));
    auto no_cls = kProtBertVocabulary;
    no_cls[2] = "[CLX]";
    CHECK_THAT(error_of([&] { (void)bert_tokenizer(no_cls, 30, "'v/vocab.txt'"); }),
               Contains("'v/vocab.txt' has no [CLS] token"));
  }
  SECTION("vocab.txt: one token per line, a final newline and CRLF ends tolerated") {
    const seqfuse::test::TempDir dir;
    {
      std::ofstream out(dir.path() / "vocab.txt", std::ios::binary);
      out << "[PAD]\r\n[UNK]\r\n[CLS]\nM\n";
    }
    CHECK(read_bert_vocabulary(dir.path()) ==
          std::vector<std::string>{"[PAD]", "[UNK]", "[CLS]", "M"});
    std::filesystem::remove(dir.path() / "vocab.txt");
    CHECK_THAT(error_of([&] { (void)read_bert_vocabulary(dir.path()); }),
               Contains("no vocab.txt in '" + dir.path().string() + "'"));
  }
}

TEST_CASE("embed bert: config.json picks the family; others are refused", "[embed][bert]") {
  CHECK(family_from_config(R"({"model_type": "esm"})", "c") == ModelFamily::esm);
  CHECK(family_from_config(R"({"model_type": "bert"})", "c") == ModelFamily::bert);
  // Rostlab's early uploads: no model_type, architectures only.
  CHECK(family_from_config(R"({"architectures": ["BertForMaskedLM"]})", "c") == ModelFamily::bert);
  CHECK_THAT(error_of([] { (void)family_from_config(R"({"model_type": "gpt2"})", "'c.json'"); }),
             Contains("'c.json' describes a 'gpt2' model (model_type); seqfuse embed supports esm "
                      "(ESM-2), bert (ProtBERT) and t5 (ProtT5's encoder)"));
  CHECK_THAT(error_of([] { (void)family_from_config(R"({"hidden_size": 4})", "'c.json'"); }),
             Contains("'c.json' has no model_type"));
  CHECK_THAT(error_of([] { (void)family_from_config("[1]", "'c.json'"); }),
             Contains("'c.json' is not a JSON object"));

  const std::string good = R"({"model_type": "bert", "vocab_size": 30, "hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
    "max_position_embeddings": 40000, "layer_norm_eps": 1e-12, "hidden_act": "gelu"})";
  const BertConfig c = parse_bert_config(good, "c");
  CHECK(c.head_dim() == 16);
  CHECK(c.max_residues() == 39998);
  CHECK(c.layer_norm_eps == 1e-12);
  const auto with = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json config = nlohmann::json::parse(good);
    config[key] = value;
    return error_of([&] { (void)parse_bert_config(config.dump(), "'c.json'"); });
  };
  CHECK_THAT(with("position_embedding_type", "relative_key"),
             Contains("position_embedding_type is 'relative_key'"));
  CHECK_THAT(with("hidden_act", "gelu_new"), Contains("hidden_act is 'gelu_new'"));
  CHECK_THAT(with("is_decoder", true), Contains("is_decoder is true"));
  CHECK_THAT(with("num_attention_heads", 5),
             Contains("hidden_size 64 is not a multiple of num_attention_heads 5"));
  CHECK_THAT(with("max_position_embeddings", 2), Contains("leaves no room for a residue"));
}

namespace {

// A random BERT in memory and the same model in plain double arithmetic.
BertModel random_bert(int hidden, int heads, int layers, int intermediate, int positions) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto fill = [&](std::size_t n, float spread, float base = 0) {
    std::vector<float> v(n);
    for (float& x : v) x = base + spread * normal(rng);
    return v;
  };
  BertModel m;
  m.config.vocab_size = 30;
  m.config.hidden_size = hidden;
  m.config.num_heads = heads;
  m.config.num_layers = layers;
  m.config.intermediate_size = intermediate;
  m.config.max_position_embeddings = positions;
  m.config.layer_norm_eps = 1e-12;
  const auto H = static_cast<std::size_t>(hidden), I = static_cast<std::size_t>(intermediate);
  m.word_embeddings = fill(30 * H, 0.5f);
  m.position_embeddings = fill(static_cast<std::size_t>(positions) * H, 0.5f);
  m.token_type_embedding = fill(H, 0.5f);
  m.embedding_norm_weight = fill(H, 0.1f, 1);
  m.embedding_norm_bias = fill(H, 0.1f);
  for (int l = 0; l < layers; ++l) {
    BertLayerWeights w;
    w.query_weight = fill(H * H, 0.15f);
    w.key_weight = fill(H * H, 0.15f);
    w.value_weight = fill(H * H, 0.15f);
    w.attention_output_weight = fill(H * H, 0.15f);
    w.query_bias = fill(H, 0.1f);
    w.key_bias = fill(H, 0.1f);
    w.value_bias = fill(H, 0.1f);
    w.attention_output_bias = fill(H, 0.1f);
    w.attention_norm_weight = fill(H, 0.1f, 1);
    w.attention_norm_bias = fill(H, 0.1f);
    w.intermediate_weight = fill(I * H, 0.15f);
    w.intermediate_bias = fill(I, 0.1f);
    w.output_weight = fill(H * I, 0.15f);
    w.output_bias = fill(H, 0.1f);
    w.output_norm_weight = fill(H, 0.1f, 1);
    w.output_norm_bias = fill(H, 0.1f);
    m.layers.push_back(std::move(w));
  }
  return m;
}

using Matrix = std::vector<std::vector<double>>;

Matrix linear(const Matrix& x, const std::vector<float>& w, const std::vector<float>& b) {
  Matrix y(x.size(), std::vector<double>(b.size()));
  for (std::size_t r = 0; r < x.size(); ++r)
    for (std::size_t o = 0; o < b.size(); ++o) {
      double sum = b[o];
      for (std::size_t i = 0; i < x[r].size(); ++i) sum += x[r][i] * w[o * x[r].size() + i];
      y[r][o] = sum;
    }
  return y;
}

void layer_norm(Matrix& x, const std::vector<float>& weight, const std::vector<float>& bias,
                double eps) {
  for (auto& row : x) {
    const double mean = std::accumulate(row.begin(), row.end(), 0.0) / double(row.size());
    double var = 0;
    for (double v : row) var += (v - mean) * (v - mean);
    var /= double(row.size());
    for (std::size_t c = 0; c < row.size(); ++c)
      row[c] = (row[c] - mean) / std::sqrt(var + eps) * weight[c] + bias[c];
  }
}

// BertModel's hidden states 0..layers for one sequence, in double.
std::vector<Matrix> reference_states(const BertModel& m, const std::vector<std::int32_t>& ids) {
  const auto H = static_cast<std::size_t>(m.config.hidden_size);
  const std::size_t heads = static_cast<std::size_t>(m.config.num_heads), d = H / heads;
  Matrix x(ids.size(), std::vector<double>(H));
  for (std::size_t t = 0; t < ids.size(); ++t)
    for (std::size_t c = 0; c < H; ++c)
      x[t][c] = double(m.word_embeddings[std::size_t(ids[t]) * H + c]) + m.token_type_embedding[c] +
                m.position_embeddings[t * H + c];
  layer_norm(x, m.embedding_norm_weight, m.embedding_norm_bias, m.config.layer_norm_eps);
  std::vector<Matrix> states{x};
  for (const BertLayerWeights& w : m.layers) {
    const Matrix q = linear(x, w.query_weight, w.query_bias);
    const Matrix k = linear(x, w.key_weight, w.key_bias);
    const Matrix v = linear(x, w.value_weight, w.value_bias);
    Matrix context(ids.size(), std::vector<double>(H, 0.0));
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < ids.size(); ++i) {
        std::vector<double> p(ids.size());
        double top = -1e300, sum = 0;
        for (std::size_t j = 0; j < ids.size(); ++j) {
          double s = 0;
          for (std::size_t c = 0; c < d; ++c) s += q[i][h * d + c] * k[j][h * d + c];
          p[j] = s / std::sqrt(double(d));
          top = std::max(top, p[j]);
        }
        for (double& e : p) sum += (e = std::exp(e - top));
        for (std::size_t j = 0; j < ids.size(); ++j)
          for (std::size_t c = 0; c < d; ++c) context[i][h * d + c] += p[j] / sum * v[j][h * d + c];
      }
    Matrix a = linear(context, w.attention_output_weight, w.attention_output_bias);
    for (std::size_t t = 0; t < a.size(); ++t)
      for (std::size_t c = 0; c < H; ++c) a[t][c] += x[t][c];
    layer_norm(a, w.attention_norm_weight, w.attention_norm_bias, m.config.layer_norm_eps);
    x = a;
    Matrix inter = linear(x, w.intermediate_weight, w.intermediate_bias);
    for (auto& row : inter)
      for (double& e : row) e = 0.5 * e * (1 + std::erf(e / std::sqrt(2.0)));
    Matrix o = linear(inter, w.output_weight, w.output_bias);
    for (std::size_t t = 0; t < o.size(); ++t)
      for (std::size_t c = 0; c < H; ++c) o[t][c] += x[t][c];
    layer_norm(o, w.output_norm_weight, w.output_norm_bias, m.config.layer_norm_eps);
    x = o;
    states.push_back(x);
  }
  return states;
}

}  // namespace

TEST_CASE("embed bert: the CPU engine equals BertModel in double, batched or alone",
          "[embed][bert]") {
  const BertModel model = random_bert(48, 3, 3, 96, 300);  // head size 16
  const ResidueTokenizer tokenizer = bert_tokenizer(kProtBertVocabulary, 30, "v");
  const std::vector<std::string> sequences = {"M", "MKUL", "ACDEFGHIKLMNPQRSTVWYXJ",
                                              std::string(250, 'L') + "KAGW"};
  std::vector<TokenizedProtein> proteins;
  std::vector<std::span<const std::int32_t>> spans;
  for (const auto& s : sequences) proteins.push_back(tokenizer.tokenize(s, 1022));
  for (const auto& p : proteins) spans.emplace_back(p.ids);

  CpuBertEngine engine(model, 2);
  const Readout readout{{0, 1, 3}, Pooling::none};
  std::vector<Embedding> together(spans.size());
  engine.embed(spans, readout, together);
  AgreementTally tally{0.99999, 1e-4};
  for (std::size_t s = 0; s < spans.size(); ++s) {
    const std::vector<Matrix> want = reference_states(model, proteins[s].ids);
    std::vector<Embedding> alone(1);
    engine.embed(std::span(spans).subspan(s, 1), readout, alone);
    for (std::size_t slot = 0; slot < readout.layers.size(); ++slot)
      for (std::size_t t = 0; t < proteins[s].ids.size(); ++t) {
        const std::size_t at = (slot * proteins[s].ids.size() + t) * 48;
        const auto& row = want[static_cast<std::size_t>(readout.layers[slot])][t];
        tally.add(sequences[s].substr(0, 8) + " token " + std::to_string(t),
                  together[s].values.data() + at, row);
        tally.add("alone", alone[0].values.data() + at, row);
      }
  }
  tally.print("embed bert: CPU engine vs double BertModel");
  tally.check();
  CHECK(tally.worst_cosine >= 0.99999);

  // The position table bounds a sequence: one token past it is refused.
  const TokenizedProtein too_long = tokenizer.tokenize(std::string(299, 'A'), 1022);
  std::vector<Embedding> out(1);
  CHECK_THROWS_AS(
      engine.embed(std::vector<std::span<const std::int32_t>>{too_long.ids}, readout, out),
      seqfuse::Error);
}

TEST_CASE("embed bert: the CPU engine matches transformers on every BERT fixture",
          "[embed][bert]") {
  const auto batch = seqfuse::io::read_all((embed_data_dir() / "proteins.fa").string());
  for (const std::string& name : bert_fixture_names()) {
    DYNAMIC_SECTION(name) {
      const ProteinModel model = load_protein_model(embed_data_dir() / name, 2);
      REQUIRE(model.family() == ModelFamily::bert);
      const BertModel& bert = std::get<BertModel>(model.weights);
      const Reference reference = read_reference(embed_data_dir() / name / "reference.tsv");
      std::vector<std::string> ids;
      std::vector<TokenizedProtein> proteins;
      std::vector<std::span<const std::int32_t>> spans;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        ids.emplace_back(batch.name(i));
        proteins.push_back(model.tokenizer.tokenize(batch.sequence(i), 1022));
      }
      for (const auto& p : proteins) spans.emplace_back(p.ids);
      const int num_layers = model.num_layers();
      const std::size_t hidden = model.hidden_size();
      AgreementTally tally{0.99999, 1e-4};

      CpuBertEngine engine(bert, 2);
      Readout means;
      means.layers.resize(static_cast<std::size_t>(num_layers) + 1);
      std::iota(means.layers.begin(), means.layers.end(), 0);
      std::vector<Embedding> out(ids.size());
      engine.embed(spans, means, out);
      for (std::size_t s = 0; s < ids.size(); ++s) {
        for (int layer = 0; layer <= num_layers; ++layer)
          tally.add_reference(ids[s], "mean@" + std::to_string(layer),
                              out[s].values.data() + static_cast<std::size_t>(layer) * hidden,
                              reference);
        tally.add_reference(ids[s], "mean",
                            out[s].values.data() + static_cast<std::size_t>(num_layers) * hidden,
                            reference);
      }
      const Readout bos{{num_layers}, Pooling::bos};
      engine.embed(spans, bos, out);
      for (std::size_t s = 0; s < ids.size(); ++s)
        tally.add_reference(ids[s], "bos", out[s].values.data(), reference);
      const Readout tokens{{num_layers}, Pooling::none};
      engine.embed(spans, tokens, out);
      for (std::size_t s = 0; s < ids.size(); ++s) {
        if (!reference.count({ids[s], "token:0"})) continue;
        for (std::size_t t = 0; t < out[s].rows; ++t)
          tally.add_reference(ids[s], "token:" + std::to_string(t),
                              out[s].values.data() + t * hidden, reference);
      }
      CHECK(tally.compared == reference.size());
      tally.print("embed bert reference " + name);
      tally.check();
      CHECK(tally.worst_cosine >= 0.99999);
    }
  }
}
