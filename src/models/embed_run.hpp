// One `seqfuse embed` run from start to summary line: the device chosen on a
// thread of its own while the model loads, --dtype checked against it, the
// GEMM library readied beside the input read, the engine chosen, the job
// (embed_job.hpp; embed_workers.hpp for several GPU workers) run and the
// summary written. The command line
// (src/cli/cli_embed.cpp) only fills EmbedOptions.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_choice.hpp"
#include "core/report.hpp"
#include "models/embed_job.hpp"
#include "models/embed_outputs.hpp"
#include "models/engine.hpp"
#include "models/esm_weights.hpp"
#include "models/protein_model.hpp"

namespace seqfuse::models {

struct EmbedOptions {
  std::string model;  // Hugging Face checkpoint folder (ESM-2, BERT or T5: model_family.hpp)
  std::string input;  // FASTA/FASTQ path, - for stdin
  std::string output = "-";
  EmbedFormat format = EmbedFormat::tsv;
  Pooling pooling = Pooling::mean;
  // --pool with several values (embed_pools.hpp); empty or one value: `pooling` alone.
  std::vector<Pooling> pools;
  // --layers as given (negative from the end); empty: the final, normed layer.
  // Checked against the model once it is loaded.
  std::vector<int> layers;
  // --dtype; none: fp32 on the CPU, bf16 on a GPU (issue #5).
  std::optional<ComputeType> dtype;
  // --toks-per-batch; none: the engine's preference.
  std::optional<std::size_t> toks_per_batch;
  std::size_t max_length = 1022;  // residues kept per sequence
  unsigned threads = 1;
  // Picks the device (and may throw as --device resolution does). It runs on
  // a thread of its own while the model loads, so that a GPU's start-up
  // (~0.3 s for the driver and its context) overlaps the load. Null: the CPU,
  // and a --dtype the CPU lacks is refused before the model loads.
  std::function<DeviceChoice()> choose_device;
  // The device was left to --device auto: a family without a GPU engine then
  // runs on the CPU (with a warning) instead of being refused.
  bool device_auto = false;
};

// Throw UsageError naming the option and the accepted values.
[[nodiscard]] Pooling parse_pooling(std::string_view text);
[[nodiscard]] ComputeType parse_compute_type(std::string_view text);
// "fp32", "bf16", "fp16": as --dtype spells them.
[[nodiscard]] std::string compute_type_name(ComputeType compute);

// What the engine on `device` computes in: --dtype when given, else fp32 on
// the CPU and bf16 on a GPU.
[[nodiscard]] ComputeType compute_type_for(const std::optional<ComputeType>& dtype,
                                           const DeviceChoice& device);

// The one place the engine is chosen: the GPU engine (gpu_engine.hpp) on a
// GPU, else the CPU engine with `threads`. `model` must outlive the engine.
// With several GPU workers (--device gpu:0,1,...), run_embed gives each its
// own engine, made by make_gpu_worker_engine on the worker's thread.
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_embedding_engine(const ProteinModel& model,
                                                                     const DeviceChoice& device,
                                                                     ComputeType compute,
                                                                     unsigned threads);
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_embedding_engine(const EsmModel& model,
                                                                     const DeviceChoice& device,
                                                                     ComputeType compute,
                                                                     unsigned threads);
// The GPU engine of a worker of `device` on GPU `index` (one of
// device.devices); workers sharing that GPU share its memory. `host_threads`
// convert its weights for the upload.
[[nodiscard]] std::unique_ptr<EmbeddingEngine> make_gpu_worker_engine(const ProteinModel& model,
                                                                      const DeviceChoice& device,
                                                                      int index,
                                                                      ComputeType compute,
                                                                      unsigned host_threads);

// Shows warnings, progress and the summary line through `report`. Throws
// UsageError for a --dtype the device cannot compute in or --layers outside
// the model, seqfuse::Error for a bad model, input or output; on any error
// no output file is left behind.
EmbedStats run_embed(const EmbedOptions& options, Reporter& report);

}  // namespace seqfuse::models
