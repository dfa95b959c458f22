// What the GPU fastq-trim engine leaves to the CPU engine (gpu_engine.hpp).
#include "preprocess/gpu_engine.hpp"

namespace seqfuse::preprocess {

std::string gpu_trim_refusal(const TrimPlan& plan) {
  const TrimSettings& s = plan.settings;
  std::string why;
  const auto add = [&why](bool used, const char* option) {
    if (!used) return;
    why += why.empty() ? "" : ", ";
    why += option;
  };
  add(s.umi != UmiLocation::none, "-U/--umi");
  add(s.fix_mgi_id, "--fix_mgi_id");
  add(!plan.index_blacklist1.empty() || !plan.index_blacklist2.empty(), "--filter_by_index");
  add(plan.dedup, "-D/--dedup");
  add(plan.write_failed, "--failed_out");
  add(plan.write_unpaired1 || plan.write_unpaired2, "--unpaired1/2");
  add(plan.write_overlapped, "--overlapped_out");
  if (why.empty()) return why;
  return "the GPU fastq-trim engine does not do " + why;
}

}  // namespace seqfuse::preprocess
