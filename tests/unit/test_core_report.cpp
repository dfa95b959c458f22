#include <catch2/catch.hpp>

#include "core/report.hpp"

TEST_CASE("SI numbers keep three significant digits", "[core]") {
  CHECK(seqfuse::si_number(0) == "0.00");
  CHECK(seqfuse::si_number(12.345) == "12.3");
  CHECK(seqfuse::si_number(999) == "999");
  CHECK(seqfuse::si_number(1234) == "1.23 k");
  CHECK(seqfuse::si_number(2.23e12) == "2.23 T");
  CHECK(seqfuse::si_number(5e15) == "5000 T");
  CHECK(seqfuse::rate(3e9, 2.0, "bp") == "1.50 Gbp/s");
  CHECK(seqfuse::rate(50, 0.0, "reads") == "0.00 reads/s");
  CHECK(seqfuse::per_second(2.23e12, 2.0, "CUPS") == "1.11 TCUPS");
}
