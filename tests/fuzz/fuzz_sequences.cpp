// FASTA/FASTQ parsing as every subcommand reads it: the streaming parser
// (plain, gzip or BGZF: CompressedInput detects the format from the bytes)
// and the threaded whole-file FASTA parser, cut into tiny slices so slice
// boundaries land everywhere. Both must agree on records and on errors.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "fuzz_support.hpp"
#include "io/parallel_fasta.hpp"
#include "io/sequence_reader.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const RunScope run;
  const fuzz::MemFile file(data, size);
  std::string sequential;  // names and sequences as the streaming parser sees them
  std::string sequential_error;
  try {
    io::SequenceReader reader(file.path());
    io::SequenceRecord record;
    while (reader.next(record)) sequential += record.name + '\n' + record.seq + '\n';
  } catch (const Error& e) {
    sequential_error = e.what();
  }
  try {
    io::ParallelFastaOptions options;
    options.threads = 3;
    options.min_slice_bytes = 7;
    const std::optional<io::SequenceBatch> batch =
        io::read_fasta_parallel(file.path(), std::pmr::new_delete_resource(), options);
    if (batch && sequential_error.empty() && batch->size() == 0 && !sequential.empty())
      std::abort();
  } catch (const Error& e) {
    if (sequential_error.empty()) std::abort();  // one parser refused what the other took
  }
  return 0;
}
