// Loading ESM-2 checkpoints: config.json checks (what is not ESM-2 says
// why), both tensor layouts, shape checks naming the tensor, the rotary
// fallback, and the embed job's input checks and --layers resolution.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "io/batch.hpp"
#include "models/embed_job.hpp"
#include "models/esm_config.hpp"
#include "models/esm_weights.hpp"
#include "models/safetensors.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(const std::function<void()>& body) {
  try {
    body();
    return "no error";
  } catch (const seqfuse::Error& e) {
    return e.what();
  }
}

// Writes the tensors of `source` that `edit_tensor` keeps (all without it),
// possibly renamed or reshaped, as a new safetensors file.
using TensorEdit = std::function<bool(std::string& name, nlohmann::json& entry)>;
void write_tensors(const SafetensorsFile& source, const fs::path& to,
                   const TensorEdit& edit_tensor) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const TensorInfo& t : source.tensors()) {
    std::string name = t.name;
    nlohmann::json entry = {{"dtype", t.dtype}, {"shape", t.shape}};
    if (edit_tensor && !edit_tensor(name, entry)) continue;
    const auto bytes = source.bytes(t);
    entry["data_offsets"] = {data.size(), data.size() + bytes.size()};
    data.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    header[name] = entry;
  }
  const std::string text = header.dump();
  std::ofstream out(to, std::ios::binary);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  out << text << data;
}

// Copies a fixture folder into `to`, with config.json edited by `edit_config`
// and the tensors rewritten by `edit_tensor` (return false to drop one).
void copy_fixture(const std::string& fixture, const fs::path& to,
                  const std::function<void(nlohmann::json&)>& edit_config,
                  const TensorEdit& edit_tensor = {}) {
  const fs::path from = embed_data_dir() / fixture;
  fs::create_directories(to);
  nlohmann::json config = nlohmann::json::parse(read_text(from / "config.json"));
  if (edit_config) edit_config(config);
  std::ofstream(to / "config.json") << config.dump(2);

  const SafetensorsFile source((from / "model.safetensors").string());
  write_tensors(source, to / "model.safetensors", edit_tensor);
}

const char* kEsm2Config = R"({"model_type": "esm", "position_embedding_type": "rotary",
  "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
  "intermediate_size": 128, "vocab_size": 33, "layer_norm_eps": 1e-5,
  "token_dropout": true, "emb_layer_norm_before": false})";

std::string config_error(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json config = nlohmann::json::parse(kEsm2Config);
  edit(config);
  return error_of([&] { (void)parse_esm_config(config.dump(), "'config.json'"); });
}

}  // namespace

TEST_CASE("esm config: ESM-2 fields are read, anything else is refused", "[embed]") {
  const EsmConfig c = parse_esm_config(kEsm2Config, "'config.json'");
  CHECK(c.hidden_size == 64);
  CHECK(c.num_layers == 2);
  CHECK(c.head_dim() == 16);
  CHECK(c.layer_norm_eps == 1e-5);
  CHECK(c.token_dropout);

  CHECK_THAT(config_error([](auto& j) { j["model_type"] = "bert"; }),
             Contains("describes a 'bert' model, not ESM-2"));
  CHECK_THAT(config_error([](auto& j) { j.erase("model_type"); }),
             Contains("has no model_type: not a Hugging Face ESM-2 config"));
  CHECK_THAT(config_error([](auto& j) { j["position_embedding_type"] = "absolute"; }),
             Contains("'absolute' (ESM-1/ESM-1b); ESM-2 uses rotary"));
  CHECK_THAT(config_error([](auto& j) { j.erase("position_embedding_type"); }),
             Contains("ESM-2 uses rotary"));
  CHECK_THAT(config_error([](auto& j) { j["is_folding_model"] = true; }), Contains("ESMFold"));
  CHECK_THAT(config_error([](auto& j) { j["emb_layer_norm_before"] = true; }),
             Contains("emb_layer_norm_before is true (ESM-1b)"));
  CHECK_THAT(config_error([](auto& j) { j["num_attention_heads"] = 5; }),
             Contains("hidden_size 64 is not a multiple of num_attention_heads 5"));
  CHECK_THAT(config_error([](auto& j) { j["vocab_size"] = 30; }),
             Contains("vocab_size is 30; ESM-2's alphabet has 33 tokens"));
  CHECK_THAT(config_error([](auto& j) { j.erase("hidden_size"); }), Contains("has no hidden_size"));
  CHECK_THAT(config_error([](auto& j) { j["num_hidden_layers"] = -2; }),
             Contains("num_hidden_layers must be a positive integer"));
  CHECK_THAT(error_of([] { (void)parse_esm_config("{oops", "'config.json'"); }),
             Contains("'config.json' is not valid JSON"));
}

TEST_CASE("esm weights: both layouts load, with their rotary frequencies", "[embed]") {
  const EsmModel hub = load_esm_model(embed_data_dir() / "esm_hd32_bf16_hub");
  CHECK(hub.stored_dtype == "BF16");
  CHECK(hub.layers.size() == 3);
  CHECK(hub.word_embeddings.size() == 33u * 64u);
  REQUIRE(hub.layers[0].rotary_inv_freq.size() == 16);
  CHECK(hub.layers[0].rotary_inv_freq[0] == 1.0f);

  // transformers 5 stores one inv_freq in the checkpoint dtype: F16 values.
  const EsmModel saved = load_esm_model(embed_data_dir() / "esm_hd24_fp16_saved");
  CHECK(saved.stored_dtype == "F16");
  REQUIRE(saved.layers[1].rotary_inv_freq.size() == 12);
  bool rounded = false;
  for (std::size_t i = 0; i < 12; ++i) {
    const double exact = 1.0 / std::pow(10000.0, double(2 * i) / 24.0);
    const float stored = saved.layers[1].rotary_inv_freq[i];
    CHECK(std::abs(stored - exact) <= exact * 1e-3);  // F16 keeps 11 bits
    rounded = rounded || stored != static_cast<float>(exact);
  }
  CHECK(rounded);  // the stored values, not recomputed ones
  CHECK(saved.layers[0].rotary_inv_freq == saved.layers[1].rotary_inv_freq);
}

TEST_CASE("esm weights: without inv_freq tensors, rope_theta gives transformers' values",
          "[embed]") {
  TempDir dir;
  copy_fixture("esm_hd16_fp32_hub", dir.path(), {}, [](std::string& name, nlohmann::json&) {
    return name.find("inv_freq") == std::string::npos;
  });
  const EsmModel stored = load_esm_model(embed_data_dir() / "esm_hd16_fp32_hub");
  const EsmModel computed = load_esm_model(dir.path());
  REQUIRE(computed.layers[0].rotary_inv_freq.size() == stored.layers[0].rotary_inv_freq.size());
  for (std::size_t i = 0; i < stored.layers[0].rotary_inv_freq.size(); ++i)
    CHECK(computed.layers[0].rotary_inv_freq[i] ==
          Approx(stored.layers[0].rotary_inv_freq[i]).epsilon(1e-6));
}

TEST_CASE("esm weights: a sharded checkpoint loads like the single file", "[embed]") {
  TempDir dir;
  const fs::path from = embed_data_dir() / "esm_hd32_bf16_hub";
  fs::copy_file(from / "config.json", dir.path() / "config.json");
  const SafetensorsFile source((from / "model.safetensors").string());
  nlohmann::json weight_map = nlohmann::json::object();
  const auto in_first = [](const std::string& name) {
    return name.find("layer.0.") != std::string::npos ||
           name.find("embeddings") != std::string::npos;
  };
  for (const TensorInfo& t : source.tensors())
    weight_map[t.name] =
        in_first(t.name) ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  write_tensors(source, dir.path() / "model-00001-of-00002.safetensors",
                [&](std::string& name, nlohmann::json&) { return in_first(name); });
  write_tensors(source, dir.path() / "model-00002-of-00002.safetensors",
                [&](std::string& name, nlohmann::json&) { return !in_first(name); });
  std::ofstream(dir.path() / "model.safetensors.index.json")
      << nlohmann::json({{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}).dump();

  const EsmModel single = load_esm_model(from);
  const EsmModel sharded = load_esm_model(dir.path());
  CHECK(sharded.word_embeddings == single.word_embeddings);
  REQUIRE(sharded.layers.size() == single.layers.size());
  for (std::size_t i = 0; i < single.layers.size(); ++i) {
    CHECK(sharded.layers[i].query_weight == single.layers[i].query_weight);
    CHECK(sharded.layers[i].output_bias == single.layers[i].output_bias);
    CHECK(sharded.layers[i].rotary_inv_freq == single.layers[i].rotary_inv_freq);
  }
  CHECK(sharded.final_norm_weight == single.final_norm_weight);
}

TEST_CASE("esm weights: a checkpoint that disagrees with config.json names the tensor", "[embed]") {
  TempDir dir;
  SECTION("a tensor of the wrong shape (config)") {
    copy_fixture("esm_hd16_fp32_hub", dir.path(), [](auto& j) { j["intermediate_size"] = 96; });
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
               Contains("tensor 'esm.encoder.layer.0.intermediate.dense.weight' is F32 [128, 64], "
                        "config.json needs [96, 64]"));
  }
  SECTION("a tensor of the wrong shape (checkpoint)") {
    copy_fixture("esm_hd24_fp16_saved", dir.path(), {}, [](std::string& name, auto& entry) {
      if (name == "encoder.layer.1.attention.self.key.weight") entry["shape"] = {24, 96};
      return true;
    });
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
               Contains("tensor 'encoder.layer.1.attention.self.key.weight' is F16 [24, 96], "
                        "config.json needs [48, 48]"));
  }
  SECTION("more layers in the checkpoint than in config.json") {
    copy_fixture("esm_hd16_fp32_hub", dir.path(), [](auto& j) { j["num_hidden_layers"] = 1; });
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
               Contains("but config.json says 1 layers"));
  }
  SECTION("fewer layers in the checkpoint than in config.json, however many it says") {
    for (const int layers : {3, 1073741824}) {  // the second used to be "out of host memory"
      copy_fixture("esm_hd16_fp32_hub", dir.path(),
                   [&](auto& j) { j["num_hidden_layers"] = layers; });
      CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
                 Contains("config.json says " + std::to_string(layers) + " layers, but ") &&
                     Contains(" holds 2"));
    }
  }
  SECTION("a missing tensor") {
    copy_fixture("esm_hd64_fp32_saved", dir.path(), {}, [](std::string& name, auto&) {
      return name != "encoder.layer.1.output.dense.bias";
    });
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
               Contains("tensor 'encoder.layer.1.output.dense.bias' is missing"));
  }
  SECTION("no word embeddings at all") {
    copy_fixture("esm_hd64_fp32_saved", dir.path(), {}, [](std::string& name, auto&) {
      return name.find("word_embeddings") == std::string::npos;
    });
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
               Contains("has no ESM word embeddings"));
  }
  SECTION("missing folder, config and weights") {
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path() / "nope"); }),
               Contains("does not exist"));
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }), Contains("no config.json in"));
    std::ofstream(dir.path() / "config.json") << kEsm2Config;
    CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
               Contains("no model.safetensors or pytorch_model.bin in"));
  }
}

TEST_CASE("embed job: input checks, truncation warnings and --layers", "[embed]") {
  seqfuse::io::SequenceBatch batch;
  batch.push_back("short", "", "MKT");
  batch.push_back("long", "", std::string(30, 'A'));
  batch.push_back("odd", "", "MJ*K");
  const ProteinSet set = tokenize_input(batch, "in.fa", 10);
  const std::vector<std::string>& warnings = set.warnings;
  REQUIRE(set.size() == 3);
  CHECK(set.proteins[1].residues == 10);
  CHECK(set.proteins[1].truncated);
  CHECK(set.proteins[1].ids.size() == 12);
  CHECK(set.proteins[2].unknown == 2);
  CHECK(set.tokens == 5 + 12 + 6);
  CHECK(set.longest == 12);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] ==
        "1 sequence longer than --max-length 10 cut to their first 10 residues: "
        "long (30 residues)");
  CHECK_THAT(warnings[1], Contains("read as <unk>: odd"));

  seqfuse::io::SequenceBatch unknown;
  unknown.push_back("fine", "", "MK");
  unknown.push_back("junk", "", "JJ**");
  CHECK_THAT(error_of([&] { (void)tokenize_input(unknown, "in.fa", 10); }),
             Contains("sequence 'junk' (record 2 of 'in.fa') has no letter of ESM-2's alphabet"));
  seqfuse::io::SequenceBatch empty_record;
  empty_record.push_back("blank", "", "");
  CHECK_THAT(error_of([&] { (void)tokenize_input(empty_record, "in.fa", 10); }),
             Contains("sequence 'blank' (record 1 of 'in.fa') is empty"));
  const auto none = tokenize_input(seqfuse::io::SequenceBatch(), "e.fa", 10);
  CHECK(none.size() == 0);
  REQUIRE(none.warnings.size() == 1);
  CHECK_THAT(none.warnings[0], Contains("'e.fa' has no sequences"));

  CHECK(resolve_layers({}, 6) == std::vector<int>{6});
  CHECK(resolve_layers({-1, 0, -2, 3}, 6) == std::vector<int>{6, 0, 5, 3});
  CHECK(resolve_layers({-7}, 6) == std::vector<int>{0});
  CHECK_THAT(error_of([] { (void)resolve_layers({7}, 6); }),
             Contains("--layers 7: the model has 6 layers (hidden states 0..6, or -7..-1"));
  CHECK_THAT(error_of([] { (void)resolve_layers({-8}, 6); }), Contains("--layers -8"));
  CHECK_THAT(error_of([] {
               (void)resolve_layers({0, -7}, 6);
             }),
             Contains("--layers names hidden state 0 twice"));
}

// Random-access model files must be regular files: a FIFO used to block in
// open() forever, and a directory as config.json was "not valid JSON".
TEST_CASE("esm weights: a FIFO or directory in the model folder is refused at once", "[embed]") {
  TempDir dir;
  const fs::path config = dir.path() / "config.json";
  const fs::path weights = dir.path() / "model.safetensors";
  fs::copy_file(embed_data_dir() / "esm_hd16_fp32_hub" / "config.json", config);
  REQUIRE(::mkfifo(weights.c_str(), 0600) == 0);
  CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
             Contains("model file '" + weights.string() + "' is a FIFO, not a regular file"));
  fs::remove(config);
  fs::create_directory(config);
  CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
             Contains("model config '" + config.string() + "' is a directory, not a regular file"));
  fs::remove(config);
  REQUIRE(::mkfifo(config.c_str(), 0600) == 0);
  CHECK_THAT(error_of([&] { (void)load_esm_model(dir.path()); }),
             Contains("model config '" + config.string() + "' is a FIFO, not a regular file"));
}
