// The per-read pipeline's parameters (gpu/preprocess/read_pipeline.hpp) for
// a run's TrimPlan, and the host's share of counting what it reports. The
// CPU engine points them at the plan's strings; the GPU engine copies the
// same bytes to the device and points them there.
#pragma once

#include <string>
#include <vector>

#include "gpu/preprocess/read_pipeline.hpp"
#include "preprocess/engine.hpp"

namespace seqfuse::preprocess {

struct HostPipeline {
  explicit HostPipeline(const TrimPlan& plan);
  HostPipeline(const HostPipeline&) = delete;
  HostPipeline& operator=(const HostPipeline&) = delete;

  std::string fasta_bases;         // --adapter_fasta's sequences back to back
  std::vector<int> fasta_offsets;  // fasta_count + 1 entries
  gpu::preprocess::PipelineParams params;
};

// FilterCounts keeps poly-X classes as A, C, G, T; fastp's (and
// poly_x_base's) order is A, T, C, G.
[[nodiscard]] inline std::size_t polyx_slot(int base) {
  static constexpr std::size_t kSlot[4] = {0, 3, 1, 2};
  return kSlot[base];
}

// The cut-off sequence of an adapter cut (kind 1: from `seq`, the read's
// record bases; kind 2: the start of `adapter`).
[[nodiscard]] inline std::string adapter_cut_sequence(const gpu::preprocess::AdapterCut& cut,
                                                      const char* seq, const std::string& adapter) {
  if (cut.kind == 2) return adapter.substr(0, static_cast<std::size_t>(cut.length));
  return {seq + cut.from, static_cast<std::size_t>(cut.length)};
}

}  // namespace seqfuse::preprocess
