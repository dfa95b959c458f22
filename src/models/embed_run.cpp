#include "models/embed_run.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <future>
#include <memory>
#include <memory_resource>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "io/batch_reader.hpp"
#include "models/cpu_forward.hpp"
#include "models/embed_pools.hpp"
#include "models/embed_workers.hpp"
#include "models/gpu_engine.hpp"

namespace seqfuse::models {
namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", seconds);
  return text;
}

// The CPU engine computes in fp32 only.
void check_dtype(const std::optional<ComputeType>& dtype, const DeviceChoice& device) {
  if (!device.gpu && dtype && *dtype != ComputeType::fp32)
    throw UsageError("--dtype " + compute_type_name(*dtype) +
                     ": the CPU engine computes in fp32 only (bf16 and fp16 are for the GPU)");
}

}  // namespace

Pooling parse_pooling(std::string_view text) {
  if (text == "mean") return Pooling::mean;
  if (text == "bos") return Pooling::bos;
  if (text == "none") return Pooling::none;
  throw UsageError("--pool must be mean, bos or none, not '" + std::string(text) + "'");
}

ComputeType parse_compute_type(std::string_view text) {
  if (text == "fp32") return ComputeType::fp32;
  if (text == "bf16") return ComputeType::bf16;
  if (text == "fp16") return ComputeType::fp16;
  throw UsageError("--dtype must be fp32, bf16 or fp16, not '" + std::string(text) + "'");
}

std::string compute_type_name(ComputeType compute) {
  switch (compute) {
    case ComputeType::bf16:
      return "bf16";
    case ComputeType::fp16:
      return "fp16";
    case ComputeType::fp32:
      break;
  }
  return "fp32";
}

ComputeType compute_type_for(const std::optional<ComputeType>& dtype, const DeviceChoice& device) {
  if (dtype) return *dtype;
  return device.gpu ? ComputeType::bf16 : ComputeType::fp32;
}

std::unique_ptr<EmbeddingEngine> make_embedding_engine(const ProteinModel& model,
                                                       const DeviceChoice& device,
                                                       ComputeType compute, unsigned threads) {
  if (!device.gpu) return make_cpu_engine(model, threads);
  return make_gpu_worker_engine(model, device, device.first(), compute, threads);
}

std::unique_ptr<EmbeddingEngine> make_embedding_engine(const EsmModel& model,
                                                       const DeviceChoice& device,
                                                       ComputeType compute, unsigned threads) {
  if (!device.gpu) return std::make_unique<CpuEsmEngine>(model, threads);
  GpuEngineOptions options;
  options.device = device.first();
  options.compute = compute;
  options.host_threads = threads;
  return make_gpu_engine(model, options);
}

std::unique_ptr<EmbeddingEngine> make_gpu_worker_engine(const ProteinModel& model,
                                                        const DeviceChoice& device, int index,
                                                        ComputeType compute,
                                                        unsigned host_threads) {
  GpuEngineOptions options;
  options.device = index;
  options.compute = compute;
  options.host_threads = host_threads;
  options.engines_on_device = static_cast<std::size_t>(
      std::max<std::ptrdiff_t>(std::count(device.devices.begin(), device.devices.end(), index), 1));
  return make_gpu_engine(model, options);
}

EmbedStats run_embed(const EmbedOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  std::future<DeviceChoice> device_choice;
  if (options.choose_device)
    device_choice = std::async(std::launch::async, options.choose_device);
  else
    check_dtype(options.dtype, DeviceChoice{});
  ProteinModel model = load_protein_model(options.model, options.threads);
  const double load_seconds = clock.seconds();
  trace("embed: model loaded");
  RunFacts& facts = report.facts();  // for --json (docs/json-report.md)
  facts.phase("load");
  // Device problems are reported before the input's.
  DeviceChoice device = device_choice.valid() ? device_choice.get() : DeviceChoice{};
  trace("embed: device ready");
  if (!model.has_leading_token() &&
      (options.pooling == Pooling::bos ||
       std::find(options.pools.begin(), options.pools.end(), Pooling::bos) != options.pools.end()))
    throw UsageError(std::string("--pool bos: the ") + family_name(model.family()) +
                     " family has no leading token to read (T5 appends </s> only); use --pool "
                     "mean or none");
  check_dtype(options.dtype, device);
  const ComputeType compute = compute_type_for(options.dtype, device);
  // cuBLASLt's load and algorithm choice (~0.2 s) on a second thread while
  // this one reads the input and uploads the weights. Not earlier: started
  // beside the driver's start, the device was ready 50-100 ms later in the
  // traced runs (bench/results/2026-11-24-nvidia-h100-run8-embed.md).
  // With several GPUs, the first chooses the algorithms for the process and
  // the others only load the chosen kernels (a few ms each).
  std::future<void> gemm_warm_up;
  if (device.gpu)
    gemm_warm_up = std::async(std::launch::async, [&options, &device, compute] {
      std::vector<int> warmed;
      for (const int index : device.devices) {
        if (std::find(warmed.begin(), warmed.end(), index) != warmed.end()) continue;
        warmed.push_back(index);
        warm_up_gpu_engine(options.model, index, compute);
      }
    });
  const std::size_t hidden = model.hidden_size();
  // Rotary positions (ESM-2) run past the trained length, with a warning;
  // absolute ones (BERT) stop at the table: refused below, per sequence.
  if (!model.position_limit() && options.max_length > model.trained_residues())
    report.warn("--max-length " + std::to_string(options.max_length) + " goes past the " +
                std::to_string(model.trained_residues()) + " residues this model was trained on");

  // Several pools: every token is read out once and each pool derived from it.
  const bool several_pools = options.pools.size() > 1;
  Readout readout;
  readout.pooling = several_pools ? Pooling::none : options.pooling;
  readout.layers = resolve_layers(options.layers, model.num_layers());

  register_input(options.input);  // -o may not name it
  const io::SequenceBatch batch =
      io::read_all(options.input, std::pmr::new_delete_resource(), options.threads);
  const ProteinSet input =
      tokenize_input(batch, options.input, options.max_length, model.tokenizer);
  if (const auto limit = model.position_limit())
    check_position_limit(input, options.input, *limit, options.max_length);
  check_ids_for_format(options.format, input.ids);
  const auto writer = several_pools ? make_pools_writer(options.format, options.output, input,
                                                        readout.layers, hidden, options.pools)
                                    : make_embedding_writer(options.format, options.output,
                                                            output_shape(input, readout, hidden));
  for (const std::string& warning : input.warnings) report.warn(warning);
  trace("embed: input read and tokenized");
  facts.input(options.model);
  facts.input(options.input);
  if (several_pools && options.format != EmbedFormat::h5)
    for (const Pooling pool : options.pools) facts.output(pool_output_path(options.output, pool));
  else
    facts.output(options.output);
  facts.phase("read");
  if (input.size() == 0) {  // the format's empty output; no engine to start
    if (gemm_warm_up.valid()) gemm_warm_up.wait();
    writer->commit();
    facts.phase("write");
    facts.count("sequences", 0);
    facts.count("tokens", 0);
    facts.device(DeviceChoice{}, options.threads);
    facts.throughput(0, 0, "tokens/s");
    report.summary("0 sequences", clock.seconds());
    return {};
  }

  EmbedJob job;
  job.readout = readout;
  job.progress = [&report, total = input.size()](std::size_t done) {
    report.progress(std::to_string(done) + " / " + std::to_string(total) + " sequences");
  };
  // The forward clock starts once the engines are built and cuBLASLt has
  // chosen its algorithms: a one-time cost per process (~0.2 s on an H100)
  // that the whole-process time includes and a timed pass after a warm-up
  // (as HF is timed) would not.
  Stopwatch embed_clock;
  EmbedStats stats;
  std::string engine_name;
  // GPU engines keep no reference to the host model once made: its memory
  // (a 3B model's 11 GB) is given back before the batches, not at the
  // process's end (0.6 s of a 3B run's exit, run 41f). Not on a thread of
  // its own beside the batches: that slowed a 3B forward pass by 0.36 s
  // (run 41g; the pages' release stalls the thread that queues the batches).
  const auto free_model = [&model] { const ProteinModel gone = std::move(model); };
  if (device.workers() > 1) {
    // Every engine is built on its worker's thread, all at once.
    EmbedWorkers workers;
    workers.devices = device.devices;
    // The engines upload their weights at once: each takes a share of --threads.
    const unsigned upload_threads =
        std::max(1u, options.threads / static_cast<unsigned>(device.workers()));
    workers.make_engine = [&model, &device, compute, upload_threads](std::size_t, int index) {
      return make_gpu_worker_engine(model, device, index, compute, upload_threads);
    };
    if (options.toks_per_batch)
      job.toks_per_batch = *options.toks_per_batch;
    else
      workers.engines_choose_batch = true;
    workers.engines_ready = [&gemm_warm_up, &embed_clock, &free_model] {
      trace("embed: engines ready");
      free_model();
      trace("embed: host model freed");
      if (gemm_warm_up.valid()) gemm_warm_up.wait();
      embed_clock = Stopwatch();  // read once the workers are joined
    };
    stats = run_embed_job_on_workers(job, workers, input, hidden, *writer);
    engine_name = device.name();
  } else {
    const std::unique_ptr<EmbeddingEngine> engine =
        make_embedding_engine(model, device, compute, options.threads);
    trace("embed: engine ready");
    if (device.gpu) {  // the CPU engine reads the model to the end
      free_model();
      trace("embed: host model freed");
    }
    // Asked only when the user gave no size: a GPU engine's answer queries the device.
    job.toks_per_batch =
        options.toks_per_batch ? *options.toks_per_batch : engine->preferred_batch_tokens();
    if (gemm_warm_up.valid()) gemm_warm_up.wait();
    embed_clock = Stopwatch();
    stats = run_embed_job(job, *engine, input, hidden, *writer);
    engine_name = engine->name();
  }
  const double embed_seconds = embed_clock.seconds();
  trace("embed: every batch embedded");
  facts.phase("embed");  // the engine's start and every batch, written as they come
  writer->commit();
  trace("embed: output written");
  facts.phase("write");

  const unsigned threads = options.threads;
  const std::string what =
      std::to_string(stats.sequences) + " sequences, " +
      si_number(static_cast<double>(stats.tokens)) + " tokens on " + engine_name + " (" +
      (device.gpu ? compute_type_name(compute) + ")"
                  : std::to_string(threads) + (threads == 1 ? " thread)" : " threads)"));
  report.summary(what, clock.seconds(),
                 "forward " +
                     rate(static_cast<double>(stats.sequences), embed_seconds, "sequences") + ", " +
                     rate(static_cast<double>(stats.tokens), embed_seconds, "tokens") +
                     "; model loaded in " + seconds_text(load_seconds));
  facts.count("sequences", stats.sequences);
  facts.count("tokens", stats.tokens);
  facts.count("batches", stats.batches);
  facts.device(device, threads);
  facts.throughput(static_cast<double>(stats.tokens), embed_seconds, "tokens/s");
  return stats;
}

}  // namespace seqfuse::models
