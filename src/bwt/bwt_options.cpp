#include "bwt/bwt_options.hpp"

#include "core/error.hpp"

namespace seqfuse::bwt {

IndexFormat parse_index_format(const std::string& text) {
  if (text == "bwa") return IndexFormat::bwa;
  if (text == "raw") return IndexFormat::raw;
  throw UsageError("--format must be bwa or raw, not '" + text + "'");
}

void validate(const BwtOptions& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (c.format != "bwa" && c.format != "raw")
    add("--format must be bwa or raw, not '" + c.format + "'");
  // bwa finds a sampled entry by masking the row number.
  if (c.sa_interval == 0 || (c.sa_interval & (c.sa_interval - 1)) != 0)
    add("--sa-interval must be a power of 2, such as 32 (bwa's)");
  if (c.forward_only && c.format == "bwa")
    add("--forward-only is for --format raw (bwa's index always holds both strands)");
  if (c.max_memory_gb < 0) add("-m/--max-memory must be positive");
  if (c.reference == "-" && c.prefix.empty()) add("reading stdin (-) needs -p PREFIX");
  if (!problems.empty()) throw UsageError(problems);
}

std::string index_prefix(const BwtOptions& options) {
  return options.prefix.empty() ? options.reference : options.prefix;
}

}  // namespace seqfuse::bwt
