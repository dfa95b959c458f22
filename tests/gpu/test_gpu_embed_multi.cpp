// embed on several GPU workers (--device gpu:0,0 and gpu:0,0,0 on one card;
// every visible card too where there are several) against one GPU: byte-
// identical outputs for each dtype, format, pooling and --layers choice,
// through the whole run (models::run_embed) and through the job with
// NaN-poisoned device buffers; and a device failing mid-run leaves no file.
// Fresh random proteins each run (the seed is printed on failure).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/device_choice.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "gpu/runtime.hpp"
#include "io/batch.hpp"
#include "io/batch_reader.hpp"
#include "models/embed_job.hpp"
#include "models/embed_run.hpp"
#include "models/embed_workers.hpp"
#include "models/esm_weights.hpp"
#include "models/gpu_engine.hpp"
#include "../unit/test_embed_support.hpp"
#include "../unit/test_temp_dir.hpp"

using namespace seqfuse::models;
using seqfuse::DeviceChoice;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

void require_device() {
  INFO("GPU tests need a build with a GPU backend and a visible device");
  REQUIRE(gpu_engine_built());
  REQUIRE_FALSE(seqfuse::gpu::devices().empty());
}

// Worker lists to compare with {0}: two and three workers on GPU 0 (the
// many-worker path on one card), and every card where there are several.
std::vector<std::vector<int>> worker_lists() {
  std::vector<std::vector<int>> lists = {{0, 0}, {0, 0, 0}};
  const int cards = static_cast<int>(seqfuse::gpu::devices().size());
  if (cards > 1) {
    std::vector<int> all;
    for (int d = 0; d < cards; ++d) all.push_back(d);
    lists.push_back(all);
    lists.push_back({1, 0});
  }
  return lists;
}

// A few hundred proteins of mixed lengths: 1 residue, many short, some
// around the attention tile, some at the 1022-residue cut and past it, a
// few X; written as FASTA.
std::string write_proteins(const TempDir& dir, std::uint64_t seed, std::size_t count) {
  std::mt19937_64 rng(seed);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYX";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1), kind(0, 19),
      short_length(1, 120), mid_length(121, 500), long_length(900, 1100);
  const std::string path = dir.file("proteins.fa").string();
  std::ofstream out(path);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t k = kind(rng);
    const std::size_t n = k == 0   ? 1
                          : k < 14 ? short_length(rng)
                          : k < 18 ? mid_length(rng)
                                   : long_length(rng);
    out << ">p" << i << " random\n";
    for (std::size_t r = 0; r < n; ++r) out << letters[letter(rng)];
    out << '\n';
  }
  return path;
}

struct Choice {
  EmbedFormat format;
  Pooling pooling;
  std::vector<int> layers;
  std::string file;
};

// One whole run's output files (name -> bytes).
std::map<std::string, std::string> run_files(const std::string& model, const std::string& input,
                                             const Choice& c, ComputeType dtype,
                                             std::vector<int> devices,
                                             std::optional<std::size_t> toks_per_batch) {
  TempDir dir;
  EmbedOptions options;
  options.model = model;
  options.input = input;
  options.output = dir.file(c.file).string();
  options.format = c.format;
  options.pooling = c.pooling;
  options.layers = c.layers;
  options.dtype = dtype;
  options.toks_per_batch = toks_per_batch;
  options.choose_device = [devices] { return DeviceChoice{true, devices}; };
  seqfuse::Reporter report("embed", true);
  const EmbedStats stats = run_embed(options, report);
  REQUIRE(stats.sequences > 0);
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    files[entry.path().filename().string()] = slurp(entry.path());
  return files;
}

// Every sequence's rows as bytes, in the order written.
class BytesWriter final : public EmbeddingWriter {
 public:
  void write(const SequenceRows& seq) override {
    bytes += std::string(seq.id) + '\n';
    for (std::size_t l = 0; l < layers; ++l)
      for (std::size_t r = 0; r < seq.rows; ++r) {
        const float* v = seq.values + ((l * seq.block_rows) + seq.first_row + r) * hidden;
        bytes.append(reinterpret_cast<const char*>(v), hidden * sizeof(float));
      }
  }
  void commit() override { committed = true; }
  std::size_t layers = 1, hidden = 0;
  std::string bytes;
  bool committed = false;
};

GpuEngineOptions poisoned(int device, ComputeType compute) {
  GpuEngineOptions options;
  options.device = device;
  options.compute = compute;
  options.poison_buffers = true;  // NaN in every activation and output before each batch
  return options;
}

}  // namespace

TEST_CASE("embed on GPU workers: gpu:0,0 and gpu:0,0,0 write gpu:0's bytes, every dtype",
          "[gpu][embed-multi]") {
  require_device();
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  TempDir inputs;
  const std::string input = write_proteins(inputs, seed, 300);
  const std::string model = (test::embed_data_dir() / "esm_hd64_fp32_saved").string();
  const std::vector<Choice> choices = {
      {EmbedFormat::npy, Pooling::mean, {}, "e.npy"},
      {EmbedFormat::h5, Pooling::none, {0, -1}, "e.h5"},
      {EmbedFormat::tsv, Pooling::bos, {1}, "e.tsv"},
  };
  for (const ComputeType dtype : {ComputeType::fp32, ComputeType::bf16, ComputeType::fp16})
    for (const Choice& c : choices)
      // 4096 tokens: some 60 batches; none given: the engines' choice (one
      // or two batches here), which the workers must agree on too.
      for (const std::optional<std::size_t> toks :
           {std::optional<std::size_t>{4096}, std::optional<std::size_t>{}}) {
        INFO(compute_type_name(dtype)
             << " " << c.file << " toks " << (toks ? std::to_string(*toks) : "default"));
        const auto one = run_files(model, input, c, dtype, {0}, toks);
        REQUIRE_FALSE(one.empty());
        for (const auto& devices : worker_lists()) {
          INFO((DeviceChoice{true, devices}.name()));
          CHECK(run_files(model, input, c, dtype, devices, toks) == one);
        }
      }
}

TEST_CASE("embed on GPU workers: poisoned buffers, every head size, same bytes as one engine",
          "[gpu][embed-multi]") {
  require_device();
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  TempDir inputs;
  const std::string path = write_proteins(inputs, seed, 240);
  const auto batch = seqfuse::io::read_all(path);
  const ProteinSet input = tokenize_input(batch, path, 1022);
  for (const std::string& name : test::fixture_names()) {
    const EsmModel model = load_esm_model(test::embed_data_dir() / name);
    const auto hidden = static_cast<std::size_t>(model.config.hidden_size);
    EmbedJob job;
    job.readout = {resolve_layers({0, -1}, model.config.num_layers), Pooling::none};
    job.toks_per_batch = 3000;
    job.window_floats = 20000 * 2 * hidden;  // several windows
    for (const ComputeType dtype : {ComputeType::fp32, ComputeType::bf16, ComputeType::fp16}) {
      INFO(name << " " << compute_type_name(dtype));
      BytesWriter one;
      one.layers = 2;
      one.hidden = hidden;
      {
        const auto engine = make_gpu_engine(model, poisoned(0, dtype));
        run_embed_job(job, *engine, input, hidden, one);
      }
      REQUIRE(one.bytes.size() > input.size() * hidden);
      for (const auto& devices : worker_lists()) {
        INFO((DeviceChoice{true, devices}.name()));
        EmbedWorkers workers;
        workers.devices = devices;
        workers.make_engine = [&](std::size_t, int device) {
          return make_gpu_engine(model, poisoned(device, dtype));
        };
        BytesWriter many;
        many.layers = 2;
        many.hidden = hidden;
        const EmbedStats stats = run_embed_job_on_workers(job, workers, input, hidden, many);
        CHECK(stats.sequences == input.size());
        CHECK(many.bytes == one.bytes);  // NaN never equals: a forgotten row fails here too
      }
    }
  }
}

TEST_CASE("embed on GPU workers: a device failing mid-run fails the run with no output",
          "[gpu][embed-multi]") {
  require_device();
  TempDir dir;
  const std::string path = write_proteins(dir, 17, 200);
  const auto batch = seqfuse::io::read_all(path);
  const ProteinSet input = tokenize_input(batch, path, 1022);
  const EsmModel model = load_esm_model(test::embed_data_dir() / "esm_hd32_bf16_hub");
  const auto hidden = static_cast<std::size_t>(model.config.hidden_size);

  // A GPU engine whose fifth batch of the run fails, as a device lost
  // mid-run would: the other workers are stopped, their engines freed on
  // their own threads, and nothing is written.
  class Failing final : public EmbeddingEngine {
   public:
    Failing(std::unique_ptr<EmbeddingEngine> inner, std::atomic<int>& batches)
        : inner_(std::move(inner)), batches_(batches) {}
    std::string name() const override { return inner_->name(); }
    void reserve(std::size_t a, std::size_t b) override { inner_->reserve(a, b); }
    void embed(std::span<const std::span<const std::int32_t>> s, const Readout& r,
               std::span<Embedding> out) override {
      if (++batches_ == 5) throw seqfuse::Error("GPU error: an illegal memory access");
      inner_->embed(s, r, out);
    }

   private:
    std::unique_ptr<EmbeddingEngine> inner_;
    std::atomic<int>& batches_;
  };
  std::atomic<int> batches{0};
  EmbedJob job;
  job.readout = {{model.config.num_layers}, Pooling::mean};
  job.toks_per_batch = 2048;
  EmbedWorkers workers;
  workers.devices = {0, 0, 0};
  workers.make_engine = [&](std::size_t, int device) {
    return std::make_unique<Failing>(make_gpu_engine(model, poisoned(device, ComputeType::bf16)),
                                     batches);
  };
  const std::string out = dir.file("e.h5").string();
  {
    auto writer =
        make_embedding_writer(EmbedFormat::h5, out, output_shape(input, job.readout, hidden));
    CHECK_THROWS_WITH(run_embed_job_on_workers(job, workers, input, hidden, *writer),
                      "GPU error: an illegal memory access");
  }
  CHECK_FALSE(std::filesystem::exists(out));
  // The device is still usable by the next run.
  BytesWriter after;
  after.hidden = hidden;
  workers.make_engine = [&](std::size_t, int device) {
    return make_gpu_engine(model, poisoned(device, ComputeType::bf16));
  };
  CHECK(run_embed_job_on_workers(job, workers, input, hidden, after).sequences == input.size());
}
