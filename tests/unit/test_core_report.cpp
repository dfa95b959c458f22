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

TEST_CASE("error and warning text is one printable line", "[core]") {
  using seqfuse::printable_line;
  CHECK(printable_line("plain 'name' \xc3\xa9") == "plain 'name' \xc3\xa9");  // UTF-8 stays
  CHECK(printable_line("a\nb\rc") == "a b c");
  CHECK(printable_line(std::string("esc\x1b[31mred\x07\x7f\0end", 17)) ==
        "esc\\x1b[31mred\\x07\\x7f\\x00end");
}
