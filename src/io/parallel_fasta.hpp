// read_fasta_parallel: a plain FASTA file parsed into one SequenceBatch by
// several threads. read_all's fast path: a million-read FASTA takes ~0.4 s
// to parse on one core, which dominated `align-* --pairs`. The file is mapped
// read-only, cut at line starts (a slice that begins inside a record
// continues it: a one-record genome is parsed on every thread too), each
// slice parsed on its own thread by the same record rule RecordParser uses
// (fasta_text.hpp), and the slices joined in file order. Records and error
// messages match the sequential parser exactly.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <optional>
#include <string>

#include "io/batch.hpp"

namespace seqfuse::io {

struct ParallelFastaOptions {
  // Threads for reading and parsing; 0: the machine's cores, at most 32.
  unsigned threads = 0;
  // A slice is at least this long, so small files stay one slice on one
  // thread (starting threads would cost more than they save). Tests lower it
  // to cut tiny inputs into many slices.
  std::size_t min_slice_bytes = std::size_t{4} << 20;
};

// The whole file as one batch (arrays from `mr`), when `path` is a plain
// regular file whose first non-blank line is a FASTA header. Returns
// std::nullopt, having parsed nothing, for anything else (gzip/BGZF, FASTQ,
// stdin "-", pipes, files that cannot be opened, no records) and in the rare
// cases the sequential parser must decide (more than 4 GiB of names); the
// caller then reads it with RecordParser. Throws seqfuse::Error with the
// sequential parser's message for a malformed record or a read error.
[[nodiscard]] std::optional<SequenceBatch> read_fasta_parallel(
    const std::string& path, std::pmr::memory_resource* mr = std::pmr::new_delete_resource(),
    const ParallelFastaOptions& options = {});

}  // namespace seqfuse::io
