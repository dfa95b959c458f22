// The order in which a GPU search runs the parts of a target set too large
// for the device (score_in_parts), apart from the device itself, so that it
// can be tested on the host with stand-in steps.
//
// Each part runs on a thread of its own: build (upload), then for each
// chunk of queries score, then keep (merge the chunk's hits into what the
// earlier parts kept), then release (device memory back). Part p + 1 is
// built as soon as part p is, and scored at once: its kernels are queued
// while part p's still run, so the device has work while the host copies
// out, scatters and keeps part p's scores (about 50 ms a part of the big
// search, when the parts ran one after another). Part p + 2 is built only
// once part p is released: at most two parts are on the device. keep(p, c)
// runs after keep(p - 1, c), so hits merge in part order.
#pragma once

#include <cstddef>
#include <functional>

namespace seqfuse::align {

struct PartSteps {
  std::function<void(std::size_t part)> build;
  std::function<void(std::size_t part, std::size_t chunk)> score;
  std::function<void(std::size_t part, std::size_t chunk)> keep;
  std::function<void(std::size_t part)> release;
  // Checked before each score: true ends the run early (kept incomplete).
  std::function<bool()> stopping;
};

// Runs `parts` parts of `chunks` chunks each as above and returns once
// every step that started has ended. The first exception a step throws is
// rethrown here; the steps not yet started are skipped.
void run_part_pipeline(std::size_t parts, std::size_t chunks, const PartSteps& steps);

}  // namespace seqfuse::align
