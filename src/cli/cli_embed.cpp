// seqfuse embed: ESM-2 protein embeddings, equal to Hugging Face
// transformers' EsmModel within float rounding.
#include <cstdio>
#include <future>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"
#include "io/batch_reader.hpp"
#include "models/cpu_forward.hpp"
#include "models/embed_job.hpp"
#include "models/embed_outputs.hpp"
#include "models/esm_weights.hpp"
#include "models/gpu_engine.hpp"
#include "cli/subcommand.hpp"

namespace seqfuse::cli {
namespace {

struct EmbedConfig {
  CommonOptions common;
  std::string model;
  std::string input;
  std::string output = "-";
  std::string format;  // empty: from the output's extension, tsv otherwise
  std::string pool = "mean";
  std::vector<int> layers;  // empty: the final, normed layer
  std::string dtype;        // empty: fp32 on the CPU, bf16 on a GPU
  int toks_per_batch = 0;
  bool toks_per_batch_given = false;  // else the engine's preference
  int max_length = 1022;
};

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", seconds);
  return text;
}

models::Pooling parse_pooling(const std::string& text) {
  if (text == "mean") return models::Pooling::mean;
  if (text == "bos") return models::Pooling::bos;
  if (text == "none") return models::Pooling::none;
  throw UsageError("--pool must be mean, bos or none, not '" + text + "'");
}

// --dtype, defaulting to fp32 on the CPU and bf16 on a GPU (issue #5).
models::ComputeType compute_type(const std::string& dtype, const DeviceChoice& device) {
  if (dtype == "bf16" || (dtype.empty() && device.gpu)) return models::ComputeType::bf16;
  if (dtype == "fp16") return models::ComputeType::fp16;
  return models::ComputeType::fp32;
}

std::string dtype_name(models::ComputeType compute) {
  switch (compute) {
    case models::ComputeType::bf16:
      return "bf16";
    case models::ComputeType::fp16:
      return "fp16";
    case models::ComputeType::fp32:
      break;
  }
  return "fp32";
}

models::EmbedFormat chosen_format(const EmbedConfig& c) {
  return c.format.empty() ? models::format_for_path(c.output)
                          : models::parse_embed_format(c.format);
}

// Every problem with the command line at once, before any work.
void validate(const EmbedConfig& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  const auto check = [&](auto&& parse) {
    try {
      parse();
    } catch (const UsageError& e) {
      add(e.what());
    }
  };
  check([&] { (void)parse_pooling(c.pool); });
  check([&] {
    if (chosen_format(c) == models::EmbedFormat::npy && c.output == "-")
      add("--format npy writes two files (FILE.npy and FILE.ids.txt): give -o FILE.npy");
  });
  if (!c.dtype.empty() && c.dtype != "fp32" && c.dtype != "bf16" && c.dtype != "fp16")
    add("--dtype must be fp32, bf16 or fp16, not '" + c.dtype + "'");
  if (c.toks_per_batch_given && c.toks_per_batch < 1) add("--toks-per-batch must be 1 or more");
  if (c.max_length < 1) add("--max-length must be 1 or more residues");
  if (!problems.empty()) throw UsageError(problems);
}

int run_embed(const EmbedConfig& config) {
  Stopwatch clock;
  Reporter report("embed", config.common.quiet);
  const models::EmbedFormat format = chosen_format(config);

  // The engine: the GPU one when --device gives or auto finds a GPU. The
  // device is chosen on a thread of its own: a GPU's start-up (~0.3 s for
  // the driver and its context) then overlaps loading the model.
  const auto check_dtype = [&config](const DeviceChoice& device) {
    if (!device.gpu && !config.dtype.empty() && config.dtype != "fp32")
      throw UsageError("--dtype " + config.dtype +
                       ": the CPU engine computes in fp32 only (bf16 and fp16 are for the GPU)");
  };
  if (parse_device_spec(config.common.device).kind == DeviceSpec::Kind::kCpu)
    check_dtype(DeviceChoice{});
  std::future<DeviceChoice> device_choice =
      std::async(std::launch::async, [&config] { return choose_device(config.common); });
  const models::EsmModel model =
      models::load_esm_model(config.model, resolve_threads(config.common.threads));
  const double load_seconds = clock.seconds();
  trace("embed: model loaded");
  // Device problems are reported before the input's.
  const DeviceChoice device = device_choice.get();
  trace("embed: device ready");
  check_dtype(device);
  const models::ComputeType compute = compute_type(config.dtype, device);
  // cuBLASLt's load and algorithm choice (~0.2 s) on a second thread while
  // this one reads the input and uploads the weights. Not earlier: started
  // beside the driver's start, the device was ready 50-100 ms later in the
  // traced runs (bench/results/2026-11-24-nvidia-h100-run8-embed.md).
  std::future<void> gemm_warm_up;
  if (device.gpu)
    gemm_warm_up = std::async(std::launch::async, [&config, &device, compute] {
      models::warm_up_gpu_engine(config.model, device.index, compute);
    });
  const auto hidden = static_cast<std::size_t>(model.config.hidden_size);
  if (static_cast<std::size_t>(config.max_length) + 2 >
      static_cast<std::size_t>(model.config.max_position_embeddings))
    report.warn("--max-length " + std::to_string(config.max_length) + " goes past the " +
                std::to_string(model.config.max_position_embeddings - 2) +
                " residues this model was trained on");

  models::Readout readout;
  readout.pooling = parse_pooling(config.pool);
  readout.layers = models::resolve_layers(config.layers, model.config.num_layers);

  const io::SequenceBatch batch = io::read_all(config.input, std::pmr::new_delete_resource(),
                                               resolve_threads(config.common.threads));
  const models::ProteinSet input =
      models::tokenize_input(batch, config.input, static_cast<std::size_t>(config.max_length));
  models::check_ids_for_format(format, input.ids);
  const auto writer = models::make_embedding_writer(format, config.output,
                                                    models::output_shape(input, readout, hidden));
  for (const std::string& warning : input.warnings) report.warn(warning);
  trace("embed: input read and tokenized");

  const unsigned threads = resolve_threads(config.common.threads);
  std::unique_ptr<models::EmbeddingEngine> engine;
  if (device.gpu) {
    models::GpuEngineOptions options;
    options.device = device.index;
    options.compute = compute;
    engine = models::make_gpu_engine(model, options);
  } else {
    engine = std::make_unique<models::CpuEsmEngine>(model, threads);
  }
  trace("embed: engine ready");
  models::EmbedJob job;
  job.readout = readout;
  job.toks_per_batch = config.toks_per_batch_given ? static_cast<std::size_t>(config.toks_per_batch)
                                                   : engine->preferred_batch_tokens();
  job.progress = [&report, total = input.size()](std::size_t done) {
    report.progress(std::to_string(done) + " / " + std::to_string(total) + " sequences");
  };
  // The forward clock starts once cuBLASLt has chosen its algorithms: a
  // one-time cost per process (~0.2 s on an H100) that the whole-process
  // time includes and a timed pass after a warm-up (as HF is timed) would not.
  if (gemm_warm_up.valid()) gemm_warm_up.wait();
  Stopwatch embed_clock;
  const models::EmbedStats stats = models::run_embed_job(job, *engine, input, hidden, *writer);
  const double embed_seconds = embed_clock.seconds();
  trace("embed: every batch embedded");
  writer->commit();
  trace("embed: output written");

  const std::string what =
      std::to_string(stats.sequences) + " sequences, " +
      si_number(static_cast<double>(stats.tokens)) + " tokens on " + engine->name() + " (" +
      (device.gpu ? dtype_name(compute) + ")"
                  : std::to_string(threads) + (threads == 1 ? " thread)" : " threads)"));
  report.summary(what, clock.seconds(),
                 "forward " +
                     rate(static_cast<double>(stats.sequences), embed_seconds, "sequences") + ", " +
                     rate(static_cast<double>(stats.tokens), embed_seconds, "tokens") +
                     "; model loaded in " + seconds_text(load_seconds));
  return 0;
}

}  // namespace

Subcommand add_embed(CLI::App& parent) {
  auto config = std::make_shared<EmbedConfig>();
  CLI::App* app = parent.add_subcommand(
      "embed", "ESM-2 protein embeddings, as Hugging Face transformers' EsmModel computes them");
  app->footer(
      "Examples:\n"
      "  seqfuse embed --model esm2_t6_8M_UR50D proteins.fa -o emb.h5     mean of the final layer\n"
      "  seqfuse embed --model DIR proteins.fa --pool none -o emb.npy     per residue (+ "
      "emb.ids.txt)\n"
      "  seqfuse embed --model DIR proteins.fa --layers 0 -1 --pool bos   two layers, BOS vectors\n"
      "DIR is a Hugging Face ESM-2 checkpoint folder (config.json + model.safetensors).\n"
      "Lowercase letters are read as uppercase (the Hugging Face tokenizer reads them as\n"
      "<unk>); other letters outside ESM-2's alphabet are <unk>. --device auto runs on a\n"
      "GPU when there is one (in bf16 unless --dtype says otherwise), else on the CPU (fp32).");
  app->add_option("PROTEINS", config->input, "Protein FASTA/FASTQ (plain, gzip, - for stdin)")
      ->required();
  app->add_option("--model", config->model,
                  "Hugging Face ESM-2 checkpoint folder: config.json + model.safetensors")
      ->required();
  app->add_option("--format", config->format,
                  "h5, npy or tsv (default: from -o's extension .h5/.npy, else tsv)");
  app->add_option("--pool", config->pool,
                  "mean (over residues, BOS/EOS excluded), bos, or none (per residue)")
      ->capture_default_str();
  app->add_option("--layers", config->layers,
                  "Hidden states to output: 0 embeddings .. N final (normed); negative from the "
                  "end (default -1)");
  app->add_option("--dtype", config->dtype,
                  "fp32, bf16 or fp16 (default fp32 on the CPU, bf16 on a GPU)");
  app->add_option_function<int>(
      "--toks-per-batch",
      [config](int tokens) {
        config->toks_per_batch = tokens;
        config->toks_per_batch_given = true;
      },
      "Tokens per batch; sequences are batched by length (default 4096 on the CPU; on a GPU "
      "up to 65536, as its free memory allows)");
  app->add_option("--max-length", config->max_length,
                  "Residues kept per sequence; longer ones are cut with a warning")
      ->capture_default_str();
  app->add_option("-o,--output", config->output, "Output path, - for stdout")
      ->capture_default_str();
  add_threads_option(*app, config->common);
  add_device_option(*app, config->common);
  add_quiet_option(*app, config->common);
  return {app, [config] {
            validate(*config);
            return run_embed(*config);
          }};
}

}  // namespace seqfuse::cli
