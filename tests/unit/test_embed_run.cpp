// models::run_embed, the whole embed run the command line calls: options in,
// the output file and stats out, and the order in which problems surface
// (--dtype on the CPU before the model loads, device problems before the
// input's). CPU only; the GPU engine's own tests are in test_embed_gpu.cpp.
#include <catch2/catch.hpp>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/report.hpp"
#include "models/embed_run.hpp"
#include "models/gpu_engine.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using seqfuse::DeviceChoice;
using seqfuse::test::TempDir;

namespace {

std::string write_proteins(const TempDir& dir) {
  const std::string path = dir.file("p.fa").string();
  std::ofstream(path) << ">a\nMKTAYIAK\n>b\nMKL\n>c\nGGSWWEEKK\n";
  return path;
}

EmbedOptions cpu_options(const TempDir& dir) {
  EmbedOptions options;
  options.model = (test::embed_data_dir() / "esm_hd16_fp32_hub").string();
  options.input = write_proteins(dir);
  options.output = dir.file("e.tsv").string();
  options.threads = 1;
  return options;
}

}  // namespace

TEST_CASE("embed run: CPU options to a tsv file, in input order", "[embed]") {
  TempDir dir;
  EmbedOptions options = cpu_options(dir);
  options.layers = {0, -1};
  seqfuse::Reporter report("embed", true);
  const EmbedStats stats = run_embed(options, report);
  CHECK(stats.sequences == 3);
  CHECK(stats.tokens == 8 + 3 + 9 + 3 * 2);
  std::ifstream in(options.output);
  std::string line, ids;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, value;
    std::getline(fields, id, '\t');
    std::size_t values = 0;
    while (std::getline(fields, value, '\t')) ++values;
    CHECK(values == 2 * 64);  // two layers side by side, hidden 64
    ids += id;
  }
  CHECK(ids == "abc");
}

TEST_CASE("embed run: a 16-bit --dtype on the CPU is refused before the model loads", "[embed]") {
  TempDir dir;
  EmbedOptions options = cpu_options(dir);
  options.model = dir.file("no_model").string();
  options.dtype = ComputeType::bf16;
  seqfuse::Reporter report("embed", true);
  CHECK_THROWS_WITH(run_embed(options, report),
                    "--dtype bf16: the CPU engine computes in fp32 only (bf16 and fp16 are for "
                    "the GPU)");
  CHECK_THROWS_AS(run_embed(options, report), seqfuse::UsageError);
}

TEST_CASE("embed run: the device chooser runs, and its refusal comes before the input's",
          "[embed]") {
  TempDir dir;
  EmbedOptions options = cpu_options(dir);
  seqfuse::Reporter report("embed", true);

  SECTION("a chooser that finds the CPU: a 16-bit --dtype is refused after the load") {
    bool asked = false;
    options.choose_device = [&asked] {
      asked = true;
      return DeviceChoice{};
    };
    options.dtype = ComputeType::fp16;
    CHECK_THROWS_AS(run_embed(options, report), seqfuse::UsageError);
    CHECK(asked);
  }
  SECTION("a chooser that refuses: its error, not the missing input's") {
    options.input = dir.file("missing.fa").string();
    options.choose_device = []() -> DeviceChoice { throw seqfuse::Error("no such device"); };
    CHECK_THROWS_WITH(run_embed(options, report), "no such device");
  }
}

TEST_CASE("embed run: a t5 model on a chosen GPU goes to the GPU engine, not to a refusal",
          "[embed][t5]") {
  // T5 has a GPU engine (gpu_t5_family.cpp): --device gpu is no longer
  // refused for it. Without a GPU backend the engine factory says so, as for
  // every family; with one, the run either embeds (a device is there) or
  // fails on the device, never on the family.
  TempDir dir;
  EmbedOptions options = cpu_options(dir);
  options.model = (test::embed_data_dir() / "t5_hd16_fp32_saved").string();
  options.dtype = ComputeType::fp32;
  options.choose_device = [] { return DeviceChoice::one(0); };
  seqfuse::Reporter report("embed", true);
  std::string error;
  try {
    const EmbedStats stats = run_embed(options, report);
    CHECK(stats.sequences == 3);
  } catch (const std::exception& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(error.find("CPU only") == std::string::npos);
  if (!gpu_engine_built())
    CHECK(error == "this seqfuse was built without a GPU backend (CUDA or HIP)");
}

TEST_CASE("embed run: option values, compute types and the engine choice", "[embed]") {
  CHECK(parse_pooling("bos") == Pooling::bos);
  CHECK_THROWS_WITH(parse_pooling("max"), "--pool must be mean, bos or none, not 'max'");
  CHECK(parse_compute_type("fp16") == ComputeType::fp16);
  CHECK_THROWS_WITH(parse_compute_type("int8"), "--dtype must be fp32, bf16 or fp16, not 'int8'");
  CHECK(compute_type_name(ComputeType::bf16) == "bf16");

  const DeviceChoice cpu{}, gpu = DeviceChoice::one(0);
  CHECK(compute_type_for(std::nullopt, cpu) == ComputeType::fp32);
  CHECK(compute_type_for(std::nullopt, gpu) == ComputeType::bf16);
  CHECK(compute_type_for(ComputeType::fp32, gpu) == ComputeType::fp32);

  const EsmModel model = load_esm_model(test::embed_data_dir() / "esm_hd16_fp32_hub");
  CHECK(make_embedding_engine(model, cpu, ComputeType::fp32, 1)->name() == "cpu");
}
