#include "align/db_part.hpp"

#include <charconv>

#include "core/error.hpp"

namespace seqfuse::align {
namespace {

// GCC's and Clang's 128-bit integer (__extension__: not ISO C++, said once).
__extension__ using Wide = unsigned __int128;

// Which part (0-based) holds the middle of a record whose weight span is
// [begin, begin + weight) out of `total`: floor(count * middle / total),
// in exact integers (128 bits: count * 2 * total may pass 2^64).
std::uint32_t part_of(std::uint64_t begin, std::uint64_t weight, std::uint64_t total,
                      std::uint32_t count) {
  const Wide middle2 = static_cast<Wide>(begin) * 2 + weight;
  return static_cast<std::uint32_t>(middle2 * count / (static_cast<Wide>(total) * 2));
}

}  // namespace

DbPart parse_db_part(std::string_view text) {
  const auto bad = [&] {
    return UsageError("--db-part must be i/N with 1 <= i <= N, such as 2/8, not '" +
                      std::string(text) + "'");
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw bad();
  DbPart part;
  const auto read = [&](std::string_view digits, std::uint32_t& value) {
    const char* end = digits.data() + digits.size();
    const auto [stop, error] = std::from_chars(digits.data(), end, value);
    return !digits.empty() && error == std::errc{} && stop == end;
  };
  if (!read(text.substr(0, slash), part.index) || !read(text.substr(slash + 1), part.count) ||
      part.index < 1 || part.index > part.count)
    throw bad();
  return part;
}

TargetRange db_part_range(std::span<const std::uint64_t> offsets, DbPart part) {
  const std::size_t records = offsets.empty() ? 0 : offsets.size() - 1;
  const std::uint64_t total = offsets.empty() ? 0 : offsets.back() - offsets.front() + records;
  // Record k starts at weight offsets[k] - offsets[0] + k and weighs its
  // length + 1. The part of a record grows with k, so the part's records
  // are found by two binary searches over k.
  const auto first_in = [&](std::uint32_t wanted) {  // first record in part >= wanted
    std::size_t low = 0, high = records;
    while (low < high) {
      const std::size_t k = low + (high - low) / 2;
      const std::uint64_t begin = offsets[k] - offsets[0] + k;
      const std::uint64_t weight = offsets[k + 1] - offsets[k] + 1;
      if (part_of(begin, weight, total, part.count) < wanted)
        low = k + 1;
      else
        high = k;
    }
    return static_cast<std::uint32_t>(low);
  };
  return {first_in(part.index - 1), first_in(part.index)};
}

}  // namespace seqfuse::align
