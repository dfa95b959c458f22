// The NCBI-format substitution-matrix reader (--matrix FILE).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "align/matrix_file.hpp"
#include "core/error.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const align::MatrixTable table =
        align::parse_ncbi_matrix({reinterpret_cast<const char*>(data), size}, "fuzz.mat");
    if (table.scores.size() != table.letters.size() * table.letters.size()) std::abort();
    for (const int score : table.scores)
      if (score < -127 || score > 127) std::abort();
  } catch (const Error&) {
  }
  return 0;
}
