// cuBLASLt's chosen algorithm per GEMM family, kept on disk between runs.
// A process's first heuristic queries take about 0.11 s of an embed run's
// 0.67 s (the esm2 8M shape on 2,000 proteins, H100, run 38), and their
// answer is the same for the same library, device and shape: cuBLASLt's
// header says an algorithm may be stored and reused with the same library
// version. The entries are opaque here (plain C++, tested on the host);
// gemm.cu makes the keys and the words.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace seqfuse::gpu::nn {

struct CachedAlgorithm {
  bool usable = false;  // false: cuBLASLt has none for the family (the tiled kernel runs it)
  std::array<std::uint64_t, 8> words{};
};
// Key: what the answer depends on (library version, device, family), one
// line of text without tabs.
using GemmCache = std::map<std::string, CachedAlgorithm>;

// $SEQFUSE_CACHE_DIR/gemm-algorithms.tsv, else under $XDG_CACHE_HOME/seqfuse
// or ~/.cache/seqfuse. Empty (no cache) when SEQFUSE_CACHE_DIR is set but
// empty, or no folder can be named.
[[nodiscard]] std::filesystem::path gemm_cache_path();

// The entries of `path`. A missing, unreadable or damaged file gives none
// (or the lines before the damage): it is only a cache.
[[nodiscard]] GemmCache read_gemm_cache(const std::filesystem::path& path);

// Replaces `path` with `entries` (a temporary file renamed over it, so that
// concurrent runs read a whole file). False if it could not: the run goes
// on without.
bool write_gemm_cache(const std::filesystem::path& path, const GemmCache& entries);

}  // namespace seqfuse::gpu::nn
