#include "bwt/raw_files.hpp"

#include <algorithm>
#include <bit>
#include <ostream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace seqfuse::bwt {
namespace {

// Output goes through a buffer of this many characters or entries, so a
// 6.2 G-base text needs no second full-size copy.
constexpr std::size_t kChunk = std::size_t{1} << 20;

void check_stream(const std::ostream& out, const char* what) {
  if (!out) throw Error(std::string("writing the ") + what + " failed");
}

}  // namespace

std::uint64_t primary_row(std::span<const std::uint64_t> sa) {
  const auto zero = std::find(sa.begin(), sa.end(), std::uint64_t{0});
  if (zero == sa.end()) throw Error("suffix array has no entry for the whole text");
  return static_cast<std::uint64_t>(zero - sa.begin());
}

void write_raw_bwt_text(std::span<const std::uint8_t> text, std::span<const std::uint64_t> sa,
                        std::ostream& out) {
  static constexpr char kLetters[4] = {'A', 'C', 'G', 'T'};
  const std::uint64_t n = text.size();
  if (sa.size() != n + 1)
    throw Error("suffix array of " + std::to_string(sa.size()) +
                " entries does not fit a text of " + std::to_string(n) + " bases");
  std::string buffer;
  buffer.reserve(kChunk);
  for (std::size_t row = 0; row < sa.size(); ++row) {
    const std::uint64_t suffix = sa[row];
    if (suffix > n) throw Error("suffix array holds an invalid entry");
    buffer.push_back(suffix == 0 ? '$' : kLetters[text[suffix - 1] & 3]);
    if (buffer.size() == kChunk) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  check_stream(out, "BWT text");
}

void write_raw_sa(std::span<const std::uint64_t> sa, std::ostream& out) {
  if constexpr (std::endian::native == std::endian::little) {
    out.write(reinterpret_cast<const char*>(sa.data()),
              static_cast<std::streamsize>(sa.size_bytes()));
  } else {
    std::vector<char> buffer;
    buffer.reserve(kChunk * 8);
    for (std::size_t i = 0; i < sa.size(); ++i) {
      for (int b = 0; b < 8; ++b) buffer.push_back(static_cast<char>(sa[i] >> (8 * b)));
      if (buffer.size() == kChunk * 8 || i + 1 == sa.size()) {
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        buffer.clear();
      }
    }
  }
  check_stream(out, "suffix array");
}

void write_raw_json(std::uint64_t primary, std::uint64_t length, std::ostream& out) {
  // Few fixed fields, no strings from the user: written by hand rather than
  // linking a JSON library into seqfuse_bwt.
  out << "{\"format\": \"seqfuse-raw-bwt\", \"primary\": " << primary << ", \"length\": " << length
      << ", \"sentinel\": \"$\", \"alphabet\": \"ACGT\", \"sa_bytes\": 8, "
         "\"sa_byte_order\": \"little\"}\n";
  check_stream(out, "raw index JSON");
}

}  // namespace seqfuse::bwt
