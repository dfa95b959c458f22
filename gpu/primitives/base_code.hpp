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

// fastp's 2-bit code in its k-mer passes (the statistics' 5-mers, the
// adapter search's 10-mers): A0 T1 C2 G3 for the upper-case letters, -1 for
// anything else, lower case too.
SF_HOST_DEVICE int fastp_base_code(char base) {
  switch (base) {
    case 'A':
      return 0;
    case 'T':
      return 1;
    case 'C':
      return 2;
    case 'G':
      return 3;
    default:
      return -1;
  }
}

inline void encode_bases_host(const char* ascii, std::uint8_t* codes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) codes[i] = base_code(static_cast<unsigned char>(ascii[i]));
}

}  // namespace seqfuse
