// The jobs that read a saved k-mer database (`kmer-count dump`, `histo`,
// `query` and `stats`): open it, read it, write the text, end with the
// summary line.
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

struct StatsOptions {
  std::string db;
  std::string output = "-";
  std::uint32_t lower_count = 1;           // -L: only counts >= this (jellyfish stats -L)
  std::uint32_t upper_count = UINT32_MAX;  // -U: only counts <= this
};
// jellyfish stats' four numbers, over the k-mers stored in the database
// (after the -L/-U it was written with) that pass the job's own -L/-U.
struct KmerStats {
  std::uint64_t unique = 0;     // k-mers counted once
  std::uint64_t distinct = 0;   // k-mers
  std::uint64_t total = 0;      // k-mers with multiplicity: the sum of counts
  std::uint64_t max_count = 0;  // the largest count (0 for no k-mer)
};
// Writes stats_text() of the database to the output.
KmerStats run_stats_job(const StatsOptions& options, Reporter& report);
// "Unique:    N" ... "Max_count: N", four lines as `jellyfish stats` prints them.
[[nodiscard]] std::string stats_text(const KmerStats& stats);

}  // namespace seqfuse::kmer
