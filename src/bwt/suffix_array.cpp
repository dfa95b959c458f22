#include "bwt/suffix_array.hpp"

#include <divsufsort64.h>

#include <string>

#include "core/error.hpp"

namespace seqfuse::bwt {

RowVector<std::uint64_t> suffix_array_cpu(std::span<const std::uint8_t> text,
                                          unsigned /*threads*/) {
  const std::uint64_t n = text.size();
  // One allocation of n + 1 entries: libdivsufsort sorts straight into
  // entries 1..n, so a 6.2 G-base text never needs a second array.
  RowVector<std::uint64_t> sa(n + 1);  // every entry written by libdivsufsort
  sa[0] = n;
  if (n == 0) return sa;
  // int64_t and uint64_t may alias each other; every value is below 2^63.
  auto* out = reinterpret_cast<saidx64_t*>(sa.data() + 1);
  const saint_t status = divsufsort64(text.data(), out, static_cast<saidx64_t>(n));
  if (status != 0)
    throw Error("suffix sorting failed (libdivsufsort64 returned " + std::to_string(status) +
                ") on a text of " + std::to_string(n) + " bases");
  return sa;
}

}  // namespace seqfuse::bwt
