// The GEMM algorithm cache's file: one entry per line,
//   key <TAB> usable (0/1) <TAB> 8 words in hex, space-separated
// after a first line naming the format.
#include "gpu/nn/gemm_cache.hpp"

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace seqfuse::gpu::nn {
namespace {

constexpr const char* kHeader = "# seqfuse gemm algorithms v1";

std::filesystem::path folder_from_environment() {
  if (const char* dir = std::getenv("SEQFUSE_CACHE_DIR")) return dir;  // empty: off
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "seqfuse";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "seqfuse";
  return {};
}

bool parse_line(const std::string& line, std::string& key, CachedAlgorithm& value) {
  const std::size_t tab1 = line.find('\t');
  if (tab1 == std::string::npos || tab1 == 0) return false;
  const std::size_t tab2 = line.find('\t', tab1 + 1);
  if (tab2 != tab1 + 2 || (line[tab1 + 1] != '0' && line[tab1 + 1] != '1')) return false;
  key = line.substr(0, tab1);
  value.usable = line[tab1 + 1] == '1';
  std::istringstream words(line.substr(tab2 + 1));
  words >> std::hex;
  for (std::uint64_t& w : value.words)
    if (!(words >> w)) return false;
  std::string rest;
  return !(words >> rest);
}

}  // namespace

std::filesystem::path gemm_cache_path() {
  const std::filesystem::path folder = folder_from_environment();
  if (folder.empty()) return {};
  return folder / "gemm-algorithms.tsv";
}

GemmCache read_gemm_cache(const std::filesystem::path& path) {
  GemmCache entries;
  if (path.empty()) return entries;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return entries;
  while (std::getline(in, line)) {
    std::string key;
    CachedAlgorithm value;
    if (!parse_line(line, key, value)) break;  // damaged from here on
    entries[key] = value;
  }
  return entries;
}

bool write_gemm_cache(const std::filesystem::path& path, const GemmCache& entries) {
  if (path.empty()) return false;
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return false;
  const std::filesystem::path temporary =
      path.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kHeader << '\n';
    char word[20];
    for (const auto& [key, value] : entries) {
      if (key.empty() || key.find_first_of("\t\n") != std::string::npos) continue;
      out << key << '\t' << (value.usable ? '1' : '0') << '\t';
      for (std::size_t k = 0; k < value.words.size(); ++k) {
        std::snprintf(word, sizeof word, "%llx", static_cast<unsigned long long>(value.words[k]));
        out << (k ? " " : "") << word;
      }
      out << '\n';
    }
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary, error);
      return false;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (!error) return true;
  std::filesystem::remove(temporary, error);
  return false;
}

}  // namespace seqfuse::gpu::nn
