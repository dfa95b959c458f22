// Nucleotide letter -> 2-bit code, shared by kernels and the CPU engine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/primitives/host_device.hpp"

namespace seqfuse {

inline constexpr std::uint8_t kBaseN = 4;  // any letter that is not A, C, G or T

// A/a=0, C/c=1, G/g=2, T/t=3, everything else (N, IUPAC, junk) = kBaseN.
SF_HOST_DEVICE std::uint8_t base_code(unsigned char letter) {
  switch (letter | 0x20) {  // lowercase counts as uppercase
    case 'a':
      return 0;
    case 'c':
      return 1;
    case 'g':
      return 2;
    case 't':
      return 3;
    default:
      return kBaseN;
  }
}

inline void encode_bases_host(const char* ascii, std::uint8_t* codes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) codes[i] = base_code(static_cast<unsigned char>(ascii[i]));
}

}  // namespace seqfuse
