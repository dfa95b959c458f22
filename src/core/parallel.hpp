// A minimal fork-join loop for the CPU engines (align, kmer): workers pull
// chunks of an index range from a shared counter, so uneven work still balances.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gpu/host_loop.hpp"

namespace seqfuse {

// Calls body(worker, begin, end) for consecutive chunks of at most `chunk`
// indices covering [0, count), on `threads` threads (the calling thread is
// worker 0; threads == 0 counts as 1). Worker ids are below `threads`. If a
// body throws, the remaining chunks are skipped and the first exception is
// rethrown here once every worker has stopped.
void parallel_chunks(
    std::size_t count, std::size_t chunk, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body);

// parallel_chunks on `threads` threads, in the form the kernel layer's host
// code takes it (gpu/host_loop.hpp).
[[nodiscard]] gpu::HostLoop host_loop(unsigned threads);

// The CPUs this process may use: the least of the hardware threads, the CPU
// affinity mask (taskset, SLURM's binding) and the cgroup CPU quota rounded up
// (containers, systemd, SLURM's cgroup plugin), at least 1. -t 0 means this,
// so a cluster job without -t does not oversubscribe its allocation. Read
// once per process.
[[nodiscard]] unsigned cpu_budget();

// The pieces of cpu_budget(), pure over file contents so tests can feed them.
namespace cpus {

// cgroup v2 cpu.max, "QUOTA PERIOD" or "max PERIOD": ceil(QUOTA / PERIOD) CPUs;
// nullopt for no limit or text it cannot read.
[[nodiscard]] std::optional<unsigned> cpu_max_limit(std::string_view cpu_max);
// cgroup v1 cpu.cfs_quota_us (-1: no limit) and cpu.cfs_period_us.
[[nodiscard]] std::optional<unsigned> cfs_limit(std::string_view quota_us,
                                                std::string_view period_us);
// The lowest quota on the way from this process's cgroups (the text of
// /proc/self/cgroup) up to the hierarchy's root under /sys/fs/cgroup: a parent's
// quota binds its children too. read_file returns nullopt for a missing file.
[[nodiscard]] std::optional<unsigned> cgroup_limit(
    std::string_view proc_self_cgroup,
    const std::function<std::optional<std::string>(const std::string& path)>& read_file);
// The least of the known limits (0: unknown), at least 1.
[[nodiscard]] unsigned budget(unsigned hardware, unsigned affinity, std::optional<unsigned> quota);

}  // namespace cpus
}  // namespace seqfuse
