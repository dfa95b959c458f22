#include "io/record_text.hpp"

namespace seqfuse::io {
namespace {

constexpr std::size_t kQuotedTextLimit = 20;

}  // namespace

std::string hex_digits(unsigned char byte) {
  constexpr char kDigits[] = "0123456789abcdef";
  return {kDigits[byte >> 4], kDigits[byte & 0xf]};
}

std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text.substr(0, kQuotedTextLimit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x" + hex_digits(byte);
    }
  }
  if (text.size() > kQuotedTextLimit) out += "...";
  out += '\'';
  return out;
}

}  // namespace seqfuse::io
