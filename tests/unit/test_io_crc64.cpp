// io/crc64: the CRC-64 of pieces combined equals the CRC of the whole.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "io/crc64.hpp"

using seqfuse::io::crc64;
using seqfuse::io::crc64_combine;

TEST_CASE("crc64 is CRC-64/XZ", "[io][crc64]") {
  const std::string check = "123456789";  // the catalogue's check string
  CHECK(crc64(0, check.data(), check.size()) == 0x995DC9BBDF1939FAULL);
  // Fed in two calls, as a stream.
  CHECK(crc64(crc64(0, check.data(), 4), check.data() + 4, 5) == 0x995DC9BBDF1939FAULL);
}

TEST_CASE("crc64_combine joins the CRCs of pieces", "[io][crc64]") {
  std::mt19937_64 rng(20261126);
  std::vector<unsigned char> data(1 << 20);
  for (unsigned char& byte : data) byte = static_cast<unsigned char>(rng());
  const std::uint64_t whole = crc64(0, data.data(), data.size());
  // Cuts at the ends, at powers of two and at random places.
  std::vector<std::size_t> cuts = {0, 1, 7, 8, 4096, data.size() - 1, data.size()};
  for (int i = 0; i < 40; ++i) cuts.push_back(rng() % (data.size() + 1));
  for (const std::size_t cut : cuts) {
    INFO("cut at " << cut);
    const std::uint64_t a = crc64(0, data.data(), cut);
    const std::uint64_t b = crc64(0, data.data() + cut, data.size() - cut);
    CHECK(crc64_combine(a, b, data.size() - cut) == whole);
  }
  // Many pieces folded left to right, as a writer joins parts in order.
  std::uint64_t folded = 0;
  for (std::size_t at = 0; at < data.size();) {
    const std::size_t n = std::min<std::size_t>(data.size() - at, 1 + rng() % 50000);
    folded = crc64_combine(folded, crc64(0, data.data() + at, n), n);
    at += n;
  }
  CHECK(folded == whole);
}
