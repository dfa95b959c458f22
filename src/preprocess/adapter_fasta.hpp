// --adapter_fasta: the adapter sequences of a FASTA file, as fastp 0.23.2
// loads them.
#pragma once

#include <string>
#include <vector>

namespace seqfuse::preprocess {

// fastp keys records by their whole header line and keeps the last of equal
// headers; it trims with them in header byte order; sequences are
// uppercased, keep letters, '-' and '*', and need 6 bases or more (shorter
// ones are skipped). Throws seqfuse::Error when the file cannot be read.
[[nodiscard]] std::vector<std::string> load_adapter_fasta(const std::string& path);

}  // namespace seqfuse::preprocess
