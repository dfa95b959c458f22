// ProtT5's encoder on the CPU: the engine against a plain double-precision
// T5 encoder written here (random weights, both feed-forwards, heads whose
// width is not d_model, sequences past the exact and logarithmic buckets),
// and against transformers' T5 encoder (float64 references of
// scripts/make-t5-fixtures.py) on every t5 fixture; the loader's layouts and
// refusals; the run's t5 refusals (--pool bos).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <span>

#include "core/error.hpp"
#include "core/regular_file.hpp"
#include "io/batch_reader.hpp"
#include "models/cpu_t5_forward.hpp"
#include "models/protein_model.hpp"
#include "models/t5_math.hpp"
#include "models/t5_tokenizer.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;
using Catch::Matchers::Contains;

namespace {

// T5-encoder fixtures (scripts/make-t5-fixtures.py): T5EncoderModel saved,
// sharded fp16, the full T5ForConditionalGeneration (decoder, lm_head), and
// pytorch_model.bin with encoder.embed_tokens only.
const std::vector<std::string>& t5_fixture_names() {
  static const std::vector<std::string> names = {"t5_hd16_fp32_saved", "t5_hd24_fp16_sharded",
                                                 "t5_hd32_bf16_full", "t5_hd64_fp32_bin"};
  return names;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
  return "(no error)";
}

ResidueTokenizer protT5_tokenizer() {
  return t5_tokenizer_from_spiece(
      seqfuse::read_regular_file((embed_data_dir() / "t5_spiece.model").string(), "spiece"), 128,
      "spiece");
}

// A random T5 encoder in memory.
T5Model random_t5(int d_model, int heads, int d_kv, int layers, int d_ff, T5FeedForward ff) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto fill = [&](std::size_t n, float spread, float base = 0) {
    std::vector<float> v(n);
    for (float& x : v) x = base + spread * normal(rng);
    return v;
  };
  T5Config c;
  c.vocab_size = 128;
  c.d_model = d_model;
  c.num_heads = heads;
  c.d_kv = d_kv;
  c.num_layers = layers;
  c.d_ff = d_ff;
  c.feed_forward = ff;
  c.relative_attention_num_buckets = 32;
  c.relative_attention_max_distance = 128;
  c.layer_norm_epsilon = 1e-6;
  T5Model m{c, "memory", "F32", protT5_tokenizer(), {}, {}, {}, {}};
  const auto H = std::size_t(d_model), I = std::size_t(heads * d_kv), F = std::size_t(d_ff);
  const auto spread = [](std::size_t fan_in) { return 1.0f / std::sqrt(float(fan_in)); };
  m.token_embeddings = fill(128 * H, 1.0f);
  m.relative_attention_bias = fill(32 * std::size_t(heads), 0.5f);
  m.final_norm_weight = fill(H, 0.2f, 1);
  for (int l = 0; l < layers; ++l) {
    T5LayerWeights w;
    w.attention_norm_weight = fill(H, 0.2f, 1);
    w.query_weight = fill(I * H, spread(H));
    w.key_weight = fill(I * H, spread(H));
    w.value_weight = fill(I * H, spread(H));
    w.attention_output_weight = fill(H * I, spread(I));
    w.ffn_norm_weight = fill(H, 0.2f, 1);
    w.input_weight = fill(F * H, spread(H));
    if (ff == T5FeedForward::gated_gelu) w.gate_linear_weight = fill(F * H, spread(H));
    w.output_weight = fill(H * F, spread(F));
    m.layers.push_back(std::move(w));
  }
  return m;
}

using Matrix = std::vector<std::vector<double>>;

Matrix linear(const Matrix& x, const std::vector<float>& w, std::size_t out) {
  Matrix y(x.size(), std::vector<double>(out));
  for (std::size_t r = 0; r < x.size(); ++r)
    for (std::size_t o = 0; o < out; ++o) {
      double sum = 0;
      for (std::size_t i = 0; i < x[r].size(); ++i) sum += x[r][i] * w[o * x[r].size() + i];
      y[r][o] = sum;
    }
  return y;
}

Matrix rms_norm(const Matrix& x, const std::vector<float>& weight, double eps) {
  Matrix y = x;
  for (auto& row : y) {
    double squares = 0;
    for (double v : row) squares += v * v;
    const double scale = 1 / std::sqrt(squares / double(row.size()) + eps);
    for (std::size_t c = 0; c < row.size(); ++c) row[c] = row[c] * scale * weight[c];
  }
  return y;
}

// transformers' T5 bucket in double (equal to seqfuse's exact one for 32/128).
int bucket_of(long relative) {
  const int half = 16, exact = 8;
  const int base = relative > 0 ? half : 0;
  const long n = std::labs(relative);
  if (n < exact) return base + int(n);
  const double large = exact + std::log(double(n) / exact) / std::log(128.0 / exact) * 8;
  return base + std::min(int(large), half - 1);
}

// T5EncoderModel's hidden states 0..layers for one sequence's tokens
// (residues and </s>; no placeholder), in double.
std::vector<Matrix> reference_states(const T5Model& m, std::span<const std::int32_t> ids) {
  const T5Config& c = m.config;
  const auto H = std::size_t(c.d_model), heads = std::size_t(c.num_heads), d = std::size_t(c.d_kv),
             n = ids.size();
  Matrix x(n, std::vector<double>(H));
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t k = 0; k < H; ++k) x[t][k] = m.token_embeddings[std::size_t(ids[t]) * H + k];
  std::vector<Matrix> states{x};
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const T5LayerWeights& w = m.layers[l];
    const Matrix normed = rms_norm(x, w.attention_norm_weight, c.layer_norm_epsilon);
    const Matrix q = linear(normed, w.query_weight, heads * d);
    const Matrix k = linear(normed, w.key_weight, heads * d);
    const Matrix v = linear(normed, w.value_weight, heads * d);
    Matrix context(n, std::vector<double>(heads * d, 0.0));
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> p(n);
        double top = -1e300, sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          double s = 0;
          for (std::size_t e = 0; e < d; ++e) s += q[i][h * d + e] * k[j][h * d + e];
          const long relative = long(j) - long(i);
          p[j] = s + m.relative_attention_bias[std::size_t(bucket_of(relative)) * heads + h];
          top = std::max(top, p[j]);
        }
        for (double& e : p) sum += (e = std::exp(e - top));
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t e = 0; e < d; ++e) context[i][h * d + e] += p[j] / sum * v[j][h * d + e];
      }
    const Matrix a = linear(context, w.attention_output_weight, H);
    for (std::size_t t = 0; t < n; ++t)
      for (std::size_t e = 0; e < H; ++e) x[t][e] += a[t][e];
    const Matrix f = rms_norm(x, w.ffn_norm_weight, c.layer_norm_epsilon);
    Matrix up = linear(f, w.input_weight, std::size_t(c.d_ff));
    if (c.feed_forward == T5FeedForward::gated_gelu) {
      const Matrix gate = linear(f, w.gate_linear_weight, std::size_t(c.d_ff));
      for (std::size_t t = 0; t < n; ++t)
        for (std::size_t e = 0; e < up[t].size(); ++e) {
          const double u = up[t][e];
          const double gelu =
              0.5 * u * (1 + std::tanh(std::sqrt(2 / M_PI) * (u + 0.044715 * u * u * u)));
          up[t][e] = gelu * gate[t][e];
        }
    } else {
      for (auto& row : up)
        for (double& e : row) e = std::max(e, 0.0);
    }
    const Matrix o = linear(up, w.output_weight, H);
    for (std::size_t t = 0; t < n; ++t)
      for (std::size_t e = 0; e < H; ++e) x[t][e] += o[t][e];
    // The last hidden state is the final norm's output, not the last block's.
    states.push_back(
        l + 1 < m.layers.size() ? x : rms_norm(x, m.final_norm_weight, c.layer_norm_epsilon));
  }
  return states;
}

}  // namespace

TEST_CASE("embed t5: the CPU engine equals a T5 encoder in double, batched or alone",
          "[embed][t5]") {
  for (const T5FeedForward ff : {T5FeedForward::relu, T5FeedForward::gated_gelu}) {
    DYNAMIC_SECTION(feed_forward_name(ff)) {
      // 3 heads of 24 = 72 wide over d_model 40, as ProtT5-XL's 4096 over 1024.
      const T5Model model = random_t5(40, 3, 24, 3, 72, ff);
      const std::vector<std::string> sequences = {"M", "MKUL", "ACDEFGHIKLMNPQRSTVWYXJ*.",
                                                  std::string(150, 'L') + "KAGW"};
      std::vector<TokenizedProtein> proteins;
      std::vector<std::span<const std::int32_t>> spans;
      for (const auto& s : sequences) proteins.push_back(model.tokenizer.tokenize(s, 1022));
      for (const auto& p : proteins) spans.emplace_back(p.ids);

      CpuT5Engine engine(model, 2);
      const Readout readout{{0, 1, 3}, Pooling::none};
      std::vector<Embedding> together(spans.size());
      engine.embed(spans, readout, together);
      AgreementTally tally{0.99999, 1e-4};
      for (std::size_t s = 0; s < spans.size(); ++s) {
        const std::size_t tokens = proteins[s].ids.size();
        const std::vector<Matrix> want = reference_states(model, spans[s].subspan(1));
        std::vector<Embedding> alone(1);
        engine.embed(std::span(spans).subspan(s, 1), readout, alone);
        REQUIRE(together[s].rows == tokens);
        for (std::size_t slot = 0; slot < readout.layers.size(); ++slot) {
          // The placeholder's row is zero in every hidden state.
          const float* zero = together[s].values.data() + slot * tokens * 40;
          CHECK(std::all_of(zero, zero + 40, [](float v) { return v == 0.0f; }));
          for (std::size_t t = 1; t < tokens; ++t) {
            const std::size_t at = (slot * tokens + t) * 40;
            const auto& row = want[static_cast<std::size_t>(readout.layers[slot])][t - 1];
            tally.add(sequences[s].substr(0, 8) + " token " + std::to_string(t),
                      together[s].values.data() + at, row);
            tally.add("alone", alone[0].values.data() + at, row);
          }
        }
      }
      tally.print(std::string("embed t5: CPU engine vs double T5 encoder, ") +
                  feed_forward_name(ff));
      tally.check();
      CHECK(tally.worst_cosine >= 0.99999);

      // Mean pooling: over the residue tokens, </s> and the placeholder left out.
      const Readout mean{{3}, Pooling::mean};
      std::vector<Embedding> pooled(spans.size());
      engine.embed(spans, mean, pooled);
      const std::vector<Matrix> want = reference_states(model, spans[2].subspan(1));
      std::vector<double> average(40, 0.0);
      const std::size_t residues = proteins[2].residues;
      for (std::size_t t = 0; t < residues; ++t)
        for (std::size_t e = 0; e < 40; ++e) average[e] += want[3][t][e] / double(residues);
      CHECK(compare(pooled[2].values.data(), average).cosine >= 0.99999);
    }
  }
}

TEST_CASE("embed t5: the CPU engine matches transformers on every t5 fixture", "[embed][t5]") {
  const auto batch = seqfuse::io::read_all((embed_data_dir() / "proteins.fa").string());
  for (const std::string& name : t5_fixture_names()) {
    DYNAMIC_SECTION(name) {
      // No fixture folder fails here, loudly: scripts/make-t5-fixtures.py makes them.
      const ProteinModel model = load_protein_model(embed_data_dir() / name, 2);
      REQUIRE(model.family() == ModelFamily::t5);
      CHECK_FALSE(model.has_leading_token());
      const T5Model& t5 = std::get<T5Model>(model.weights);
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

      CpuT5Engine engine(t5, 2);
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
      const Readout tokens{{num_layers}, Pooling::none};
      engine.embed(spans, tokens, out);
      for (std::size_t s = 0; s < ids.size(); ++s) {
        if (!reference.count({ids[s], "token:0"})) continue;
        // Rows: the placeholder, the residue tokens, </s>; token:I is residue token I.
        for (std::size_t t = 0; t < proteins[s].residues; ++t)
          tally.add_reference(ids[s], "token:" + std::to_string(t),
                              out[s].values.data() + (t + 1) * hidden, reference);
      }
      CHECK(tally.compared == reference.size());
      tally.print("embed t5 reference " + name);
      tally.check();
      CHECK(tally.worst_cosine >= 0.99999);
    }
  }
}

TEST_CASE("embed t5: the loader names what a checkpoint lacks", "[embed][t5]") {
  // A fixture copied, its config.json changed.
  const seqfuse::test::TempDir dir;
  const std::filesystem::path folder = dir.path() / "t5";
  std::filesystem::copy(embed_data_dir() / "t5_hd16_fp32_saved", folder);
  const std::string text = seqfuse::read_regular_file((folder / "config.json").string(), "config");
  const auto load_with = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json config = nlohmann::json::parse(text);
    config[key] = value;
    std::ofstream(folder / "config.json") << config.dump();
    return error_of([&] { (void)load_protein_model(folder, 1); });
  };
  CHECK_THAT(load_with("num_layers", 3), Contains("config.json says 3 layers (num_layers), but"));
  CHECK_THAT(load_with("num_layers", 1), Contains("encoder.block.1."));
  CHECK_THAT(load_with("feed_forward_proj", "gated-gelu"),
             Contains("encoder.block.0.layer.1.DenseReluDense.wi_0.weight"));
  CHECK_THAT(load_with("d_kv", 8), Contains("encoder.block.0.layer.0.SelfAttention.q.weight"));
  load_with("d_kv", 16);
  std::filesystem::remove(folder / "spiece.model");
  CHECK_THAT(error_of([&] { (void)load_protein_model(folder, 1); }),
             Contains("no spiece.model (nor tokenizer.json) in"));
}

TEST_CASE("embed t5: lm_head and decoder tensors are ignored, whatever their shape",
          "[embed][t5]") {
  // The full fixture's safetensors (decoder.* already there) with an untied
  // lm_head.weight appended, as T5ForConditionalGeneration with
  // tie_word_embeddings false saves it.
  const seqfuse::test::TempDir dir;
  const std::filesystem::path folder = dir.path() / "t5";
  std::filesystem::copy(embed_data_dir() / "t5_hd32_bf16_full", folder);
  const std::string file = (folder / "model.safetensors").string();
  const std::string bytes = seqfuse::read_regular_file(file, "safetensors");
  std::uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_size));
  const std::string data = bytes.substr(8 + header_size);
  const std::string lm_head(128 * 64 * 2, '\x3f');  // bf16 values near 0.75
  header["lm_head.weight"] = {{"dtype", "BF16"},
                              {"shape", {128, 64}},
                              {"data_offsets", {data.size(), data.size() + lm_head.size()}}};
  const std::string text = header.dump();
  const std::uint64_t size = text.size();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&size), 8);
    out << text << data << lm_head;
  }
  const ProteinModel with_head = load_protein_model(folder, 1);
  const ProteinModel fixture = load_protein_model(embed_data_dir() / "t5_hd32_bf16_full", 1);
  const T5Model& a = std::get<T5Model>(with_head.weights);
  const T5Model& b = std::get<T5Model>(fixture.weights);
  CHECK(a.token_embeddings == b.token_embeddings);
  CHECK(a.layers.back().output_weight == b.layers.back().output_weight);
  CHECK(a.final_norm_weight == b.final_norm_weight);
}
