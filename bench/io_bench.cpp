// seqfuse-io-bench FILE [--batch|--records]
// Reads a whole FASTA/FASTQ file (plain, gzip, BGZF, "-") and prints one line:
//   records=N bases=B seconds=S MB_per_s=X
// where MB are 10^6 bytes of uncompressed input text parsed per second.
// --batch (the default) uses BatchReader, the path the engines use;
// --records uses SequenceReader, to show what per-record strings cost.
#include <htslib/hts_log.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "io/batch_reader.hpp"
#include "io/sequence_reader.hpp"

namespace {

struct Totals {
  std::uint64_t records = 0;
  std::uint64_t bases = 0;
  std::uint64_t input_bytes = 0;
};

Totals read_batches(const std::string& path) {
  seqfuse::io::BatchReader reader(path);
  Totals totals;
  while (const seqfuse::io::SequenceBatch* batch = reader.next()) {
    totals.records += batch->size();
    totals.bases += batch->total_bases();
  }
  totals.input_bytes = reader.bytes_read();
  return totals;
}

Totals read_records(const std::string& path) {
  seqfuse::io::SequenceReader reader(path);
  seqfuse::io::SequenceRecord rec;
  Totals totals;
  while (reader.next(rec)) {
    ++totals.records;
    totals.bases += rec.seq.size();
  }
  totals.input_bytes = reader.bytes_read();
  return totals;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 ||
      (argc == 3 && std::string_view(argv[2]) != "--batch" &&
       std::string_view(argv[2]) != "--records")) {
    std::fprintf(stderr, "usage: seqfuse-io-bench FILE [--batch|--records]\n");
    return 2;
  }
  hts_set_log_level(HTS_LOG_OFF);  // our one-line errors say it all
  const std::string path = argv[1];
  const bool per_record = argc == 3 && std::string_view(argv[2]) == "--records";
  try {
    const auto started = std::chrono::steady_clock::now();
    const Totals totals = per_record ? read_records(path) : read_batches(path);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("records=%llu bases=%llu seconds=%.3f MB_per_s=%.1f\n",
                static_cast<unsigned long long>(totals.records),
                static_cast<unsigned long long>(totals.bases), seconds,
                static_cast<double>(totals.input_bytes) / 1e6 / seconds);
    return 0;
  } catch (const seqfuse::Error& e) {
    std::fprintf(stderr, "seqfuse-io-bench: error: %s\n", e.what());
    return e.exit_code();
  }
}
