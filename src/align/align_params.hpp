// The align domain's tunables, read from the environment once per process.
// They are for tests and timing, not options for users: each changes how
// the GPU engine runs, never what it outputs.
//   SEQFUSE_ALIGN_LANES=32           the search in 32-bit lanes only (the 16-bit
//                                    kernel is skipped), to time the two side by
//                                    side (scripts/device-align-lanes.sh)
//   SEQFUSE_ALIGN_PART_RESIDUES=N    target residues per part of a GPU search
//                                    (smaller than the set: the parts path)
//   SEQFUSE_ALIGN_LONG=F             targets longer than F x the mean go to the
//                                    one-warp-per-pair kernel (gpu::ScoreParams::
//                                    long_factor; 0: none)
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace seqfuse::align {

struct AlignTunables {
  bool narrow_lanes = true;         // try the 16-bit search kernel first
  std::uint64_t part_residues = 0;  // 0: sized from free device memory
  std::uint32_t long_factor = 16;

  [[nodiscard]] static AlignTunables from_environment() {
    AlignTunables t;
    if (const char* lanes = std::getenv("SEQFUSE_ALIGN_LANES"))
      t.narrow_lanes = std::string_view(lanes) != "32";
    if (const char* residues = std::getenv("SEQFUSE_ALIGN_PART_RESIDUES"))
      t.part_residues = std::max<std::uint64_t>(1, std::strtoull(residues, nullptr, 10));
    if (const char* factor = std::getenv("SEQFUSE_ALIGN_LONG"))
      t.long_factor = static_cast<std::uint32_t>(std::strtoul(factor, nullptr, 10));
    return t;
  }
};

// Filled on first use.
[[nodiscard]] inline const AlignTunables& align_tunables() {
  static const AlignTunables tunables = AlignTunables::from_environment();
  return tunables;
}

}  // namespace seqfuse::align
