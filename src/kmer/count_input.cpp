#include "kmer/count_input.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace seqfuse::kmer {

FastqText open_fastq_text(const std::string& input, std::size_t chunk_bytes, unsigned threads) {
  FastqText text;
  text.reader = std::make_unique<io::FastqChunkReader>(input, chunk_bytes, threads);
  return text;
}

void parallel_copy(char* dst, const char* src, std::size_t n, unsigned threads) {
  constexpr std::size_t kSlice = std::size_t{4} << 20;
  parallel_chunks((n + kSlice - 1) / kSlice, 1, threads,
                  [&](unsigned, std::size_t begin, std::size_t) {
                    const std::size_t from = begin * kSlice;
                    std::memcpy(dst + from, src + from, std::min(kSlice, n - from));
                  });
}

void warn_empty(const std::string& name, Reporter& report) {
  report.warn("input '" + name + "' has no sequences: it adds no k-mers");
}

void show_progress(const CountStats& stats, Reporter& report) {
  report.progress(std::to_string(stats.reads) + " reads, " +
                  si_number(static_cast<double>(stats.bases)) + "bp");
}

void take_text_totals(const TextTotals& totals, const std::string& name, CountStats& stats,
                      Reporter& report) {
  if (totals.malformed)
    throw Error(name + ": record " + std::to_string(totals.malformed_record + 1) + ": " +
                totals.problem);
  if (totals.records == 0) warn_empty(name, report);
  stats.reads += totals.records;
  stats.bases += totals.bases;
  show_progress(stats, report);
}

}  // namespace seqfuse::kmer
