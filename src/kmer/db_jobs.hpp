// The jobs that read a saved k-mer database (`kmer-count dump`, `histo` and
// `query`): open it, read it, write the text, end with the summary line.
// Each throws UsageError for options that cannot run and seqfuse::Error for
// a bad database, input or output; on any error no output file is left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/report.hpp"
#include "kmer/histogram.hpp"

namespace seqfuse::kmer {

struct DumpOptions {
  std::string db;
  std::string output = "-";                // a path, - for stdout
  std::uint32_t lower_count = 1;           // -L: keep counts >= this
  std::uint32_t upper_count = UINT32_MAX;  // -U: keep counts <= this
};
// "KMER COUNT" lines, ascending (jellyfish dump -c, sorted). Returns the
// k-mers written.
std::uint64_t run_dump_job(const DumpOptions& options, Reporter& report);

struct HistoOptions {
  std::string db;
  std::string output = "-";
  HistoParams params;  // jellyfish histo's -l/-h/-i/-f
};
// The database's histogram as jellyfish histo prints it. Returns the
// distinct k-mers in it.
std::uint64_t run_histo_job(const HistoOptions& options, Reporter& report);

struct QueryOptions {
  std::string db;
  std::vector<std::string> kmers;  // looked up first, in this order
  std::string file;  // then these: FASTA/FASTQ records or plain lines, one k-mer each; - for stdin
  std::string output = "-";
};
// "KMER COUNT" per query, the k-mer in the database's form (canonical when
// it is, as Jellyfish's query prints it), 0 for a k-mer not in it. Returns
// the k-mers looked up.
std::size_t run_query_job(const QueryOptions& options, Reporter& report);

}  // namespace seqfuse::kmer
