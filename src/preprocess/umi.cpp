#include "preprocess/umi.hpp"

#include <cctype>

namespace seqfuse::preprocess {

UmiLocation parse_umi_location(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "index1") return UmiLocation::index1;
  if (text == "index2") return UmiLocation::index2;
  if (text == "read1") return UmiLocation::read1;
  if (text == "read2") return UmiLocation::read2;
  if (text == "per_index") return UmiLocation::per_index;
  if (text == "per_read") return UmiLocation::per_read;
  return UmiLocation::none;
}

std::string_view first_index(std::string_view header) {
  const auto n = static_cast<long>(header.size());
  if (n < 5) return {};
  long end = n;  // fastp's inclusive end of the index; moved before a '+'
  for (long i = n - 3; i >= 0; --i) {
    const char c = header[static_cast<std::size_t>(i)];
    if (c == '+') end = i - 1;
    if (c == ':') {
      const long count = end - i;
      return header.substr(static_cast<std::size_t>(i + 1),
                           count > 0 ? static_cast<std::size_t>(count) : 0);
    }
  }
  return {};
}

std::string_view last_index(std::string_view header) {
  const auto n = static_cast<long>(header.size());
  if (n < 5) return {};
  for (long i = n - 3; i >= 0; --i) {
    const char c = header[static_cast<std::size_t>(i)];
    if (c == ':' || c == '+') return header.substr(static_cast<std::size_t>(i + 1));
  }
  return {};
}

void add_umi_to_name(std::string& header, std::string_view umi, std::string_view prefix) {
  std::string tag = ":";
  if (!prefix.empty()) {
    tag += prefix;
    tag += '_';
  }
  tag += umi;
  const std::size_t space = header.find(' ');
  if (space == std::string::npos)
    header += tag;
  else
    header.insert(space, tag);
}

}  // namespace seqfuse::preprocess
