// What a `seqfuse bwt` run is asked to do: the command line's values
// (src/cli/cli_bwt.cpp binds CLI11 to these fields) plus what the CLI
// resolves for it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/device_choice.hpp"

namespace seqfuse::bwt {

enum class IndexFormat {
  bwa,  // PREFIX.bwt .sa .pac .ann .amb, byte-identical to `bwa index` 0.7.17
  raw,  // PREFIX.bwt.txt (the BWT, '$' as sentinel), PREFIX.sa (uint64), PREFIX.raw.json
};

struct BwtOptions {
  std::string reference;  // FASTA path, plain or gzip, - for stdin
  std::string prefix;     // empty: the reference path, as bwa index does
  std::string format = "bwa";
  std::uint32_t sa_interval =
      32;                     // bwa format: every N-th suffix array entry is kept (a power of 2)
  bool forward_only = false;  // raw format: the text as given, no reverse complement
  double max_memory_gb = 0;   // -m: host memory cap in GB (2^30 bytes); 0: the default
  unsigned threads = 1;
  // Picks the device (and may throw as --device resolution does); it runs on
  // a thread of its own while the reference is read. Null: the CPU.
  std::function<DeviceChoice()> choose_device;
  // --device gpu or gpu:N: a text the GPU engine cannot take is an error,
  // not a warning and a CPU run.
  bool gpu_required = false;
};

// Throws UsageError naming every problem with the values at once.
void validate(const BwtOptions& options);

[[nodiscard]] IndexFormat parse_index_format(const std::string& text);

// The prefix the files are written under.
[[nodiscard]] std::string index_prefix(const BwtOptions& options);

}  // namespace seqfuse::bwt
