// One host thread per GPU worker of a --device gpu:0,1,... run, each with its
// device current (the runtime's current device is per thread). Every
// subcommand that splits work across devices starts its workers here, so a
// failing device fails the whole run the same way everywhere: the others are
// asked to stop, all are joined, and the first failure (in worker order) is
// rethrown, before any output is committed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <vector>

namespace seqfuse {

// work(stop, worker, device) runs on its own thread for each entry of
// `devices` (repeats allowed: gpu:0,0 gives two workers on GPU 0). `stop` is
// requested once any worker has thrown; long loops should check it between
// their pieces of work. Returns when every worker has returned.
// `bind` makes a device current on the worker's thread: gpu::use_device
// unless a test fakes the devices.
using DeviceWork = std::function<void(std::stop_token stop, std::size_t worker, int device)>;
using BindDevice = std::function<void(int device)>;
void run_device_workers(const std::vector<int>& devices, const DeviceWork& work);
void run_device_workers(const std::vector<int>& devices, const DeviceWork& work,
                        const BindDevice& bind);

// Boundaries of `parts` contiguous ranges of items with these weights, each
// holding close to an equal share of the total weight: items
// [bounds[p], bounds[p + 1]) go to part p; bounds.size() == parts + 1.
// An item goes to the part holding the middle of its weight, so one heavy
// item never drags a neighbour along; parts may be empty.
[[nodiscard]] std::vector<std::size_t> split_by_weight(const std::vector<std::uint64_t>& weights,
                                                       std::size_t parts);

}  // namespace seqfuse
