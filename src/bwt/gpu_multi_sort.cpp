// sort_on_devices: the steps, each on the thread of the device it uses.
//   1. home (the first device): the text unpacked, its bins counted, the
//      rank array (8 bytes a suffix) allocated;
//   2. every other device, on a thread each: home made reachable and the
//      text copied from there (device to device); then each device's bucket capacity with its
//      workers' share of its free memory, the smallest one for all;
//   3. the split (bucket_split.hpp), then one thread a worker sorting its
//      buckets largest first, ranks written into home's array, tied
//      suffixes claimed block by block in one host list;
//   4. home: the doubling over the tied list and the rows out, as the
//      one-device sort ends.
// Serial around the split sort: steps 1 and 4, and the host's packing and
// index writing around this call.
#include "bwt/gpu_multi_sort.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <string>

#include "bwt/bucket_split.hpp"
#include "core/device_workers.hpp"
#include "core/error.hpp"
#include "gpu/bwt/multi_sort.hpp"
#include "gpu/error.hpp"
#include "gpu/runtime.hpp"
#include "gpu/trace.hpp"

namespace seqfuse::bwt {
namespace {

// The devices in first-seen order, each once, and its workers' count.
struct DistinctDevices {
  std::vector<int> devices;
  std::vector<std::size_t> workers;
};
DistinctDevices distinct(const std::vector<int>& devices) {
  DistinctDevices out;
  for (const int d : devices) {
    const auto at = std::find(out.devices.begin(), out.devices.end(), d);
    if (at == out.devices.end()) {
      out.devices.push_back(d);
      out.workers.push_back(1);
    } else {
      ++out.workers[static_cast<std::size_t>(at - out.devices.begin())];
    }
  }
  return out;
}

}  // namespace

std::string multi_sort_refusal(const std::vector<int>& devices) {
  if (devices.empty()) return {};
  for (const int d : devices)
    if (!gpu::bwt::can_reach(d, devices.front()))
      return "gpu:" + std::to_string(d) +
             " cannot write into gpu:" + std::to_string(devices.front()) +
             "'s memory (no peer access)";
  return {};
}

void sort_on_devices(const gpu::bwt::PackedCodes& text, const gpu::bwt::SortOutput& out,
                     const std::vector<int>& devices, std::uint64_t bucket_suffixes) {
  namespace gb = gpu::bwt;
  if (devices.empty()) throw Error("internal: a suffix sort on no device");
  const std::uint64_t codes = (text.both_strands ? 2 : 1) * text.length;
  if (out.interval == 0 || !std::has_single_bit(out.interval) || out.bwt.size() != codes + 1 ||
      out.samples.size() != codes / out.interval + 1)
    throw Error("internal: the suffix sort's output does not fit the text");
  const DistinctDevices places = distinct(devices);
  const int home = devices.front();

  // 1. Home: the text, its bins, the ranks.
  gpu::use_device(home);
  std::vector<std::unique_ptr<gb::DeviceText>> texts(places.devices.size());
  texts[0] = std::make_unique<gb::DeviceText>(text, out.host_threads);
  const std::uint64_t n = texts[0]->size();
  const std::vector<std::uint64_t> bins = gb::count_bucket_bins(*texts[0]);
  gpu::DeviceBuffer ranks((n + 1) * 8);
  auto* rank = ranks.as<std::uint64_t>();
  gpu::trace("bwt gpu: text on gpu:" + std::to_string(home) + ", bins counted");

  // 2. The other devices' texts, then every device's capacity.
  std::vector<std::uint64_t> capacities(places.devices.size(), 0);
  run_device_workers(places.devices, [&](std::stop_token, std::size_t p, int) {
    if (p > 0) {
      gb::reach(home);
      texts[p] = std::make_unique<gb::DeviceText>(*texts[0], home);
    }
    capacities[p] = gb::bucket_capacity_here(places.workers[p]);
  });
  const std::uint64_t device_capacity =
      bucket_suffixes != 0 ? bucket_suffixes
                           : *std::min_element(capacities.begin(), capacities.end());

  // 3. The split and the workers.
  const BucketSplit split = split_buckets(bins, device_capacity, devices.size());
  if (split.buckets.empty() || device_capacity == 0)
    throw gpu::OutOfMemory("bucketed suffix sort: more suffixes share their first " +
                           std::to_string(gb::kBinChars) + " characters than the " +
                           std::to_string(device_capacity) +
                           " a bucket can hold on each of the devices");
  gpu::trace("bwt gpu: " + std::to_string(split.buckets.size()) + " buckets of at most " +
             std::to_string(split.capacity) + " suffixes over " + std::to_string(devices.size()) +
             " workers");
  gb::TiedList tied(n + 1);
  run_device_workers(devices, [&](std::stop_token stop, std::size_t w, int device) {
    const std::vector<std::size_t>& mine = split.per_worker[w];
    if (mine.empty()) return;
    const auto place = static_cast<std::size_t>(
        std::find(places.devices.begin(), places.devices.end(), device) - places.devices.begin());
    gb::BucketWorker worker(*texts[place], split.largest[w]);
    for (const std::size_t b : mine) {
      if (stop.stop_requested()) return;
      (void)worker.sort(split.buckets[b], rank, tied);
    }
    gpu::trace("bwt gpu: worker " + std::to_string(w) + " (gpu:" + std::to_string(device) +
               ") ranked " + std::to_string(mine.size()) + " buckets, " +
               std::to_string(split.load[w]) + " suffixes");
  });
  // The other devices' texts are no longer needed: freed on their devices.
  run_device_workers(places.devices, [&](std::stop_token, std::size_t p, int) {
    if (p > 0) texts[p].reset();
  });

  // 4. Home: the doubling and the rows.
  gpu::use_device(home);
  gb::finish_bucket_ranks(rank, *texts[0], tied, split.capacity, bucket_suffixes != 0, out);
}

}  // namespace seqfuse::bwt
