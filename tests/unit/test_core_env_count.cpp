// env_count: the one parser of the count knobs (fastq-trim's GPU chunk and
// lanes, bwt's forced buckets), with the messages those subcommands gave.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "core/env_count.hpp"
#include "core/error.hpp"

using Catch::Matchers::Equals;
using seqfuse::env_count;

TEST_CASE("env_count reads a count from 1 to a bound, or nothing", "[core][env]") {
  const char* name = "SEQFUSE_TEST_ENV_COUNT";
  ::unsetenv(name);
  CHECK_FALSE(env_count(name, "a lane count", 64).has_value());
  ::setenv(name, "", 1);
  CHECK_FALSE(env_count(name, "a lane count", 64).has_value());
  ::setenv(name, "64", 1);
  CHECK(env_count(name, "a lane count", 64) == 64u);
  ::setenv(name, "18446744073709551615", 1);
  CHECK(env_count(name, "a positive integer") == 18446744073709551615u);
  for (const char* bad : {"0", "65", "x", "4x", " 4", "+4", "-1", "99999999999999999999999"}) {
    INFO(bad);
    ::setenv(name, bad, 1);
    CHECK_THROWS_WITH(
        env_count(name, "a lane count", 64),
        Equals(std::string(name) + " must be a lane count from 1 to 64, not '" + bad + "'"));
    CHECK_THROWS_AS(env_count(name, "a lane count", 64), seqfuse::UsageError);
  }
  ::setenv(name, "-1", 1);  // strtoull alone would take it as 2^64 - 1
  CHECK_THROWS_WITH(env_count(name, "a positive integer"),
                    Equals(std::string(name) + " must be a positive integer, not '-1'"));
  ::unsetenv(name);
}
