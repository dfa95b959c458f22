// Interface between the CPU engine and the striped (Farrar) SIMD kernels.
//
// Each instruction set's kernels live in their own source file compiled with
// its own flags (striped_avx2.cpp with -mavx2, striped_sse41.cpp with
// -msse4.1), one source compiled per ISA and chosen once at run time. Only plain
// data crosses this interface, and those files use nothing with external
// linkage but the KernelSet getters below: an inline function or template
// instantiated there with -mavx2 could otherwise be picked by the linker for
// every caller and run on a CPU without AVX2.
#pragma once

#include <cstddef>
#include <cstdint>

namespace seqfuse::align::striped {

// Query profile, striped: for alphabet code a, segment s and lane l, the score
// of a against query residue l * segments + s (0 beyond the query end). Lanes
// are 1, 2 or 4 bytes wide, as the kernel's.
struct Profile {
  const void* data = nullptr;  // alphabet * segments vectors, aligned to 64 bytes
  int segments = 0;
  int query_length = 0;
};

// Three buffers of `segments` vectors each, aligned to 64 bytes; contents on
// entry do not matter.
struct Workspace {
  void* columns[3] = {nullptr, nullptr, nullptr};  // H of previous, current and best column
  void* e = nullptr;                               // E of the current column
};

struct Outcome {
  int score = 0;
  int query_end = 0;
  int target_end = 0;
  // 8- and 16-bit local kernels: a lane reached the lane maximum, the score
  // may be clipped; rerun with wider lanes. Global 16-bit kernels rely on the caller's a-priori
  // range check instead (see cpu_engine.cpp) and never set it.
  bool saturated = false;
};

// `target` holds alphabet codes; target_length >= 1, profile.query_length >= 1.
using Kernel = Outcome (*)(const Profile& profile, const std::uint8_t* target, int target_length,
                           int gap_open, int gap_extend, const Workspace& workspace);

struct KernelSet {
  const char* name;  // "avx2", "sse4.1"
  int vector_bytes;  // 32 or 16
  Kernel local8;     // saturates at 127 (then rerun at 16 bits)
  Kernel local16;
  Kernel global16;
  Kernel local32;
  Kernel global32;
};

// Null when the build has no kernels for that ISA (not x86-64).
[[nodiscard]] const KernelSet* avx2_kernels() noexcept;
[[nodiscard]] const KernelSet* sse41_kernels() noexcept;

}  // namespace seqfuse::align::striped
