#include "core/env_count.hpp"

#include <cerrno>
#include <cstdlib>

#include "core/error.hpp"

namespace seqfuse {

std::optional<std::uint64_t> env_count(const char* name, const std::string& what,
                                       std::uint64_t most) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  // strtoull alone would take " 5", "+5" and "-1" (as 2^64 - 1).
  bool digits = true;
  for (const char* c = value; *c != '\0'; ++c) digits = digits && *c >= '0' && *c <= '9';
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = digits ? std::strtoull(value, &end, 10) : 0;
  if (!digits || errno == ERANGE || n == 0 || n > most) {
    const std::string range = most < std::numeric_limits<std::uint64_t>::max()
                                  ? " from 1 to " + std::to_string(most)
                                  : "";
    throw UsageError(std::string(name) + " must be " + what + range + ", not '" + value + "'");
  }
  return n;
}

}  // namespace seqfuse
