// fastq-trim on several GPU workers (--device gpu:0,1,...): one engine per
// worker, each with its own lanes (streams, device buffers, pinned staging)
// on its device, behind one TrimEngine that deals the run's chunks to them.
// The run does not change: its worker threads still hand chunks to one
// engine and write each chunk's output in its input slot, so the order of
// the output never depends on which device trimmed a chunk; the counts are
// sums (and per-sequence adapter tallies), the same in any order.
// Host code only: the CPU tests put CPU engines behind fake devices.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device_workers.hpp"
#include "preprocess/engine.hpp"

namespace seqfuse::preprocess {

// Makes the engine of one GPU worker; runs on that worker's thread with its
// device current.
using DeviceEngineFactory = std::function<std::unique_ptr<TrimEngine>(int device)>;

// One engine per entry of `devices` (repeats allowed), made at once on the
// workers' threads (each device's start-up and uploads overlap); the first
// failure in worker order is rethrown after every worker is done.
[[nodiscard]] std::vector<std::unique_ptr<TrimEngine>> make_device_engines(
    const std::vector<int>& devices, const DeviceEngineFactory& make, const BindDevice& bind);

// A TrimEngine that gives each chunk to the engine with the fewest chunks
// in flight, the search starting after the engine chosen last (so a single
// calling thread still takes every engine in turn). finish() collects every
// engine's counts. `name` is the summary line's ("gpu:0,1").
[[nodiscard]] std::unique_ptr<TrimEngine> deal_to_engines(
    std::vector<std::unique_ptr<TrimEngine>> engines, std::string name);

}  // namespace seqfuse::preprocess
