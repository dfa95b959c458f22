#include "kmer/kmer_params.hpp"

#include <cstdlib>

namespace seqfuse::kmer {

KmerTunables KmerTunables::from_environment() {
  KmerTunables tunables;
  if (const char* mib = std::getenv("SEQFUSE_KMER_CHUNK_MIB")) {
    const long value = std::strtol(mib, nullptr, 10);
    if (value >= 1 && value <= 256)
      tunables.gpu_text_chunk_bytes = static_cast<std::size_t>(value) << 20;
  }
  return tunables;
}

}  // namespace seqfuse::kmer
