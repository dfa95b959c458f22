#include "preprocess/pipeline_params.hpp"

namespace seqfuse::preprocess {

HostPipeline::HostPipeline(const TrimPlan& plan) {
  namespace kernel = gpu::preprocess;
  const TrimSettings& s = plan.settings;
  kernel::PipelineParams& p = params;
  for (int side = 0; side < 2; ++side) {
    p.front[side] = s.front[side];
    p.tail[side] = s.tail[side];
    p.max_len[side] = s.max_len[side];
  }
  p.cut = s.cut;
  p.filter = s.filter;
  p.limits.diff_limit = s.overlap_diff_limit;
  p.limits.length_required = s.overlap_len_require;
  p.limits.diff_percent_limit = s.overlap_diff_percent_limit;
  p.poly_g = s.poly_g;
  p.poly_g_min_len = s.poly_g_min_len;
  p.poly_x = s.poly_x;
  p.poly_x_min_len = s.poly_x_min_len;
  p.adapter_trimming = s.adapter_trimming;
  p.correction = s.correction;
  p.adapter[0] = plan.adapter1.data();
  p.adapter_length[0] = static_cast<int>(plan.adapter1.size());
  p.adapter[1] = plan.adapter2.data();
  p.adapter_length[1] = static_cast<int>(plan.adapter2.size());
  fasta_offsets.push_back(0);
  for (const std::string& adapter : plan.fasta_adapters) {
    fasta_bases += adapter;
    fasta_offsets.push_back(static_cast<int>(fasta_bases.size()));
  }
  p.fasta_bases = fasta_bases.data();
  p.fasta_offsets = fasta_offsets.data();
  p.fasta_count = static_cast<int>(plan.fasta_adapters.size());
  p.fasta_match_required = kernel::fasta_adapter_match_required(p.fasta_count);
  p.unknown_insert = static_cast<int>(kInsertSizeMax);
}

}  // namespace seqfuse::preprocess
