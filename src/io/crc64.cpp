#include "io/crc64.hpp"

#include <isa-l/crc64.h>

#include <array>

namespace seqfuse::io {
namespace {

// The ECMA-182 polynomial, bit-reflected, as crc64_ecma_refl uses it.
constexpr std::uint64_t kReflectedPoly = 0xC96C5795D7870F42ULL;

// A 64 x 64 matrix over GF(2), one 64-bit column per input bit: the linear
// map that appending zero bits applies to a CRC register.
using Gf2Matrix = std::array<std::uint64_t, 64>;

std::uint64_t times(const Gf2Matrix& matrix, std::uint64_t vector) noexcept {
  std::uint64_t sum = 0;
  for (int bit = 0; vector != 0; vector >>= 1, ++bit)
    if (vector & 1) sum ^= matrix[bit];
  return sum;
}

Gf2Matrix squared(const Gf2Matrix& matrix) noexcept {
  Gf2Matrix out{};
  for (int bit = 0; bit < 64; ++bit) out[bit] = times(matrix, matrix[bit]);
  return out;
}

}  // namespace

std::uint64_t crc64(std::uint64_t crc, const void* data, std::size_t size) noexcept {
  return crc64_ecma_refl(crc, static_cast<const unsigned char*>(data), size);
}

// As zlib's crc32_combine: the inverted start and end of both CRCs cancel,
// so crc(A B) is crc(A) advanced over |B| zero bytes, plus crc(B). Advancing
// over 2^n bytes is the one-bit step matrix squared 3 + n times.
std::uint64_t crc64_combine(std::uint64_t crc_a, std::uint64_t crc_b,
                            std::uint64_t size_b) noexcept {
  if (size_b == 0) return crc_a;
  Gf2Matrix step{};  // one zero bit
  step[0] = kReflectedPoly;
  for (int bit = 1; bit < 64; ++bit) step[bit] = std::uint64_t{1} << (bit - 1);
  Gf2Matrix power = squared(squared(squared(step)));  // one zero byte
  for (; size_b != 0; size_b >>= 1) {
    if (size_b & 1) crc_a = times(power, crc_a);
    if (size_b > 1) power = squared(power);
  }
  return crc_a ^ crc_b;
}

}  // namespace seqfuse::io
