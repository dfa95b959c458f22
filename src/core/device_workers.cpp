#include "core/device_workers.hpp"

#include <exception>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "gpu/runtime.hpp"

namespace seqfuse {

void run_device_workers(const std::vector<int>& devices, const DeviceWork& work) {
  run_device_workers(devices, work, [](int device) { gpu::use_device(device); });
}

void run_device_workers(const std::vector<int>& devices, const DeviceWork& work,
                        const BindDevice& bind) {
  if (devices.empty()) throw Error("internal: GPU work with no device");
  std::stop_source stop;
  std::vector<std::exception_ptr> failures(devices.size());
  {
    std::vector<std::jthread> threads;
    threads.reserve(devices.size());
    for (std::size_t worker = 0; worker < devices.size(); ++worker) {
      threads.emplace_back([&, worker] {
        try {
          bind(devices[worker]);
          work(stop.get_token(), worker, devices[worker]);
        } catch (...) {
          failures[worker] = std::current_exception();
          stop.request_stop();
        }
      });
    }
  }  // joined
  // A worker stopped because another failed may have thrown for that reason
  // too; the first failure in worker order is the one reported, and a real
  // failure is preferred over a stop.
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

std::vector<std::size_t> split_by_weight(const std::vector<std::uint64_t>& weights,
                                         std::size_t parts) {
  if (parts == 0) throw Error("internal: a split into 0 parts");
  __extension__ using Wide = unsigned __int128;  // parts x total may pass 2^64
  Wide total = 0;
  for (const std::uint64_t w : weights) total += w;
  std::vector<std::size_t> bounds(parts + 1, weights.size());
  bounds[0] = 0;
  // Item k goes to part floor(parts x middle_k / total), where middle_k is
  // the middle of its weight span; that part never decreases with k.
  Wide before = 0;
  std::size_t part = 0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    const Wide middle2 = before * 2 + weights[k];
    const std::size_t p = total == 0 ? k * parts / weights.size()
                                     : static_cast<std::size_t>(middle2 * parts / (total * 2));
    while (part < p) bounds[++part] = k;
    before += weights[k];
  }
  return bounds;
}

}  // namespace seqfuse
