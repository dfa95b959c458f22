// Row and elementwise loops of the CPU engine. Each is compiled for AVX-512,
// AVX2+FMA and baseline x86-64 and picked once at load time (GCC's
// target_clones; other compilers and CPUs get the baseline). Contraction is
// off (-std=c++20) and reductions run in fixed lanes, so every variant
// gives the same bits.
#pragma once

#include <cstddef>

namespace seqfuse::models {

// Each of `rows` rows of n >= 1 scores (row stride n) becomes its softmax.
void softmax_rows(float* scores, std::size_t rows, std::size_t n);

// x * 0.5 * (1 + erf(x / sqrt 2)): ESM's exact GELU (not the tanh form).
void gelu_in_place(float* values, std::size_t n);

}  // namespace seqfuse::models
