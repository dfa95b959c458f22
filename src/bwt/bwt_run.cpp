#include "bwt/bwt_run.hpp"

#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bwt/bwa_index_files.hpp"
#include "bwt/engine.hpp"
#include "bwt/index_text.hpp"
#include "bwt/raw_files.hpp"
#include "bwt/reference_pack.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/output_file.hpp"
#include "core/output_stream.hpp"
#include "gpu/error.hpp"

namespace seqfuse::bwt {
namespace {

std::vector<std::string> file_suffixes(IndexFormat format) {
  if (format == IndexFormat::bwa) return {".bwt", ".sa", ".pac", ".ann", ".amb"};
  return {".bwt.txt", ".sa", ".raw.json"};
}

// The suffix-array sampling the files need: bwa's interval, or every row.
std::uint32_t sample_interval(IndexFormat format, const BwtOptions& options) {
  return format == IndexFormat::bwa ? options.sa_interval : 1;
}

// Host memory the run holds at its peak: the packed reference, what the
// engine needs (the text in its form, its arrays, the rows) and, for bwa's
// files, the packed BWT with its occurrence blocks and a copy of the samples.
std::uint64_t peak_host_bytes(const BwtEngine& engine, IndexFormat format,
                              const BwtOptions& options, const IndexText& text) {
  const std::uint32_t interval = sample_interval(format, options);
  const std::uint64_t length = text.length();
  std::uint64_t bytes = text.forward_length() + engine.host_bytes(text, interval);
  if (format == IndexFormat::bwa)
    bytes += length / 4 + length / 128 * 32 + 8 * (length / interval + 1);
  return bytes;
}

// The one place an engine is chosen: the GPU's (on every worker of the
// device list) when a device was chosen and the first can take the text; otherwise the CPU's, with
// a warning under
// --device auto and an error under --device gpu.
std::unique_ptr<BwtEngine> choose_engine(const DeviceChoice& device, const BwtOptions& options,
                                         std::uint64_t text_length, Reporter& report) {
  if (!device.gpu) return make_cpu_bwt_engine();
  std::unique_ptr<BwtEngine> gpu = make_gpu_bwt_engine(device.devices);
  const std::string refusal = gpu->cannot_sort(text_length);
  if (refusal.empty()) return gpu;
  if (options.gpu_required) throw Error("--device gpu: " + refusal);
  report.warn(refusal + ": indexing on the CPU");
  return make_cpu_bwt_engine();
}

}  // namespace

BwtStats run_bwt(const BwtOptions& options, Reporter& report) {
  const RunScope run;  // the inputs register_input records are this run's
  Stopwatch clock;
  const IndexFormat format = parse_index_format(options.format);
  const std::string prefix = index_prefix(options);
  register_input(options.reference);  // PREFIX.bwt may not be it
  std::vector<std::unique_ptr<OutputFile>> files;
  for (const std::string& suffix : file_suffixes(format))
    files.push_back(std::make_unique<OutputFile>(prefix + suffix));
  RunFacts& facts = report.facts();  // for --json (docs/json-report.md)
  facts.input(options.reference);
  for (const auto& file : files) facts.output(file->path());

  // The device is chosen on a thread of its own: a GPU's start-up (a
  // quarter of a second on the H100 machine) overlaps reading the
  // reference. Device problems are still reported first.
  std::future<DeviceChoice> device_choice =
      options.choose_device ? std::async(std::launch::async, options.choose_device)
                            : std::async(std::launch::deferred, [] { return DeviceChoice{}; });
  std::optional<PackedReference> packed;
  try {
    packed.emplace(pack_reference(options.reference, options.threads));
  } catch (...) {
    (void)device_choice.get();
    throw;
  }
  const PackedReference& reference = *packed;
  if (reference.records.empty())  // valid, as for bwa index: an index of nothing
    report.warn("'" + (options.reference == "-" ? std::string("stdin") : options.reference) +
                "' has no sequences: the index holds no bases, as bwa index writes it");
  trace("bwt: reference packed");
  // bwa indexes both strands; the raw format may take the forward one alone.
  IndexText text(reference, !(format == IndexFormat::raw && options.forward_only), options.threads);
  if (format == IndexFormat::bwa) (void)text.pac();  // written anyway; the GPU takes it
  DeviceChoice device = device_choice.get();
  trace("bwt: device chosen");
  if (device.workers() > 1) {
    // Several workers share the buckets, their ranks written into the first
    // device's memory: a device that cannot reach it leaves the sort to the
    // first device (the same files, on one GPU).
    const std::string refusal = gpu_bwt_devices_refusal(device.devices);
    if (!refusal.empty()) {
      report.warn(refusal + ": --device " + device.name() +
                  " sorts on gpu:" + std::to_string(device.first()) + " alone");
      device = DeviceChoice::one(device.first());
    }
  }
  facts.phase("read");

  std::unique_ptr<BwtEngine> engine = choose_engine(device, options, text.length(), report);
  const std::uint64_t budget = options.max_memory_gb > 0
                                   ? static_cast<std::uint64_t>(options.max_memory_gb * kBytesPerGB)
                                   : default_max_memory();
  auto check_memory = [&](const BwtEngine& chosen) {
    const std::uint64_t need = peak_host_bytes(chosen, format, options, text);
    if (need > budget)
      throw Error(options.reference + ": indexing " + std::to_string(text.length()) +
                  " bases needs about " + memory_size(need) + " of host memory; -m allows " +
                  memory_size(budget));
  };
  check_memory(*engine);

  const std::uint32_t interval = sample_interval(format, options);
  SortedSuffixes sorted;
  try {
    sorted = engine->sort(text, interval, options.threads);
  } catch (const gpu::OutOfMemory& e) {
    // The device could not take the text after all (a prefix too common
    // for its buckets): under --device auto the CPU takes it.
    if (options.gpu_required) throw;
    report.warn(std::string(e.what()) + ": indexing on the CPU");
    engine = make_cpu_bwt_engine();
    check_memory(*engine);
    sorted = engine->sort(text, interval, options.threads);
  }
  trace("bwt: suffixes sorted");
  facts.phase("sort");
  if (format == IndexFormat::bwa) {
    const BwaIndex index = build_bwa_index(std::move(sorted), options.threads);
    sorted = SortedSuffixes();  // the BWT codes: the index holds what the files need
    trace("bwt: occurrence blocks built");
    OutputFileStream bwt(*files[0]), sa_file(*files[1]), pac(*files[2]), ann(*files[3]),
        amb(*files[4]);
    write_bwa_bwt(index, bwt);
    write_bwa_sa(index, sa_file);
    trace("bwt: .bwt and .sa written");
    const std::span<const char> pac_file = text.pac();
    pac.write(pac_file.data(), static_cast<std::streamsize>(pac_file.size()));
    write_ann(reference, ann);
    write_amb(reference, amb);
  } else {
    OutputFileStream bwt(*files[0]), sa_file(*files[1]), json(*files[2]);
    write_raw_bwt_text(sorted.bwt, bwt);
    write_raw_sa(sorted.samples, sa_file);
    write_raw_json(sorted.primary, sorted.bwt.size(), json);
  }
  trace("bwt: index written");
  // Committed together, after every byte is written: a failure before this
  // point leaves no index file behind.
  for (const auto& file : files) file->commit();
  facts.phase("write");

  BwtStats stats;
  stats.records = reference.records.size();
  stats.bases = reference.bases.size();
  stats.suffixes = text.length() + 1;
  stats.engine = engine->name();
  const double seconds = clock.seconds();
  report.summary(std::to_string(stats.records) + (stats.records == 1 ? " record, " : " records, ") +
                     si_quantity(static_cast<double>(stats.bases), "bp") + " (" +
                     si_number(static_cast<double>(stats.suffixes)) + " suffixes" +
                     ") indexed on " + stats.engine,
                 seconds, rate(static_cast<double>(stats.bases), seconds, "bp"));
  facts.count("records", stats.records);
  facts.count("bases", stats.bases);
  facts.count("suffixes", stats.suffixes);
  facts.device(stats.engine == "cpu" ? DeviceChoice{} : device, options.threads);
  facts.throughput(static_cast<double>(stats.bases), seconds, "bp/s");
  return stats;
}

}  // namespace seqfuse::bwt
