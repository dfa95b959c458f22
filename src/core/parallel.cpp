#include "core/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <exception>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace seqfuse {

void parallel_chunks(std::size_t count, std::size_t chunk, unsigned threads,
                     const std::function<void(unsigned, std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1U), chunks));

  std::atomic<std::size_t> next_chunk{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    try {
      while (!failed.load(std::memory_order_relaxed)) {
        const std::size_t index = next_chunk.fetch_add(1, std::memory_order_relaxed);
        if (index >= chunks) break;
        const std::size_t begin = index * chunk;
        body(worker, begin, std::min(count, begin + chunk));
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  try {
    for (unsigned worker = 1; worker < workers; ++worker) pool.emplace_back(work, worker);
  } catch (...) {  // could not start a thread: stop the ones running, then report
    failed.store(true);
    for (std::thread& thread : pool) thread.join();
    throw;
  }
  work(0);
  for (std::thread& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

gpu::HostLoop host_loop(unsigned threads) {
  return gpu::HostLoop(threads, [threads](std::size_t count, std::size_t chunk,
                                          const gpu::ChunkBody& body) {
    parallel_chunks(count, chunk, threads, body);
  });
}

namespace cpus {
namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<std::int64_t> integer(std::string_view text) {
  text = trimmed(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<unsigned> quota_cpus(std::optional<std::int64_t> quota,
                                   std::optional<std::int64_t> period) {
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  const std::int64_t cpus = *quota / *period + (*quota % *period != 0 ? 1 : 0);
  return static_cast<unsigned>(std::min<std::int64_t>(cpus, std::numeric_limits<unsigned>::max()));
}

std::optional<unsigned> least(std::optional<unsigned> a, std::optional<unsigned> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The limit in one cgroup folder: v2's cpu.max, else v1's pair of files.
std::optional<unsigned> folder_limit(
    const std::string& folder,
    const std::function<std::optional<std::string>(const std::string&)>& read_file) {
  if (const auto cpu_max = read_file(folder + "/cpu.max")) return cpu_max_limit(*cpu_max);
  const auto quota = read_file(folder + "/cpu.cfs_quota_us");
  const auto period = read_file(folder + "/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  return cfs_limit(*quota, *period);
}

bool lists_cpu_controller(std::string_view controllers) {
  while (!controllers.empty()) {
    const auto comma = controllers.find(',');
    if (controllers.substr(0, comma) == "cpu") return true;
    if (comma == std::string_view::npos) break;
    controllers.remove_prefix(comma + 1);
  }
  return false;
}

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

unsigned affinity_cpus() {
#if defined(__linux__)
  // A fixed cpu_set_t holds 1024 CPUs; bigger machines need a bigger mask.
  for (std::size_t count = 1024; count <= (std::size_t{1} << 20); count *= 2) {
    cpu_set_t* set = CPU_ALLOC(count);
    if (set == nullptr) return 0;
    const std::size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set);
    const int status = sched_getaffinity(0, size, set);
    const int cpus = status == 0 ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (status == 0) return static_cast<unsigned>(std::max(cpus, 0));
    if (errno != EINVAL) return 0;
  }
#endif
  return 0;
}

}  // namespace

std::optional<unsigned> cpu_max_limit(std::string_view cpu_max) {
  cpu_max = trimmed(cpu_max);
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  return quota_cpus(integer(cpu_max.substr(0, space)), integer(cpu_max.substr(space + 1)));
}

std::optional<unsigned> cfs_limit(std::string_view quota_us, std::string_view period_us) {
  return quota_cpus(integer(quota_us), integer(period_us));
}

std::optional<unsigned> cgroup_limit(
    std::string_view proc_self_cgroup,
    const std::function<std::optional<std::string>(const std::string&)>& read_file) {
  std::optional<unsigned> limit;
  std::istringstream lines{std::string(proc_self_cgroup)};
  for (std::string line; std::getline(lines, line);) {
    // "ID:CONTROLLERS:PATH"; v2 has no controllers, v1 names them.
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view controllers =
        std::string_view(line).substr(first + 1, second - first - 1);
    std::vector<std::string> roots;
    if (controllers.empty()) {
      roots = {"/sys/fs/cgroup"};
    } else if (lists_cpu_controller(controllers)) {
      roots = {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"};
    } else {
      continue;
    }
    // Inside a container the path may name a folder its mount does not show
    // (the container's own group is the mount's root), so walk up to the
    // root reading whatever exists.
    std::string path(trimmed(std::string_view(line).substr(second + 1)));
    while (!path.empty() && path.back() == '/') path.pop_back();
    for (;;) {
      for (const std::string& root : roots)
        limit = least(limit, folder_limit(root + path, read_file));
      if (path.empty()) break;
      const auto slash = path.rfind('/');
      path.erase(slash == std::string::npos ? 0 : slash);
    }
  }
  return limit;
}

unsigned budget(unsigned hardware, unsigned affinity, std::optional<unsigned> quota) {
  unsigned count = std::numeric_limits<unsigned>::max();
  if (hardware > 0) count = std::min(count, hardware);
  if (affinity > 0) count = std::min(count, affinity);
  if (quota && *quota > 0) count = std::min(count, *quota);
  return count == std::numeric_limits<unsigned>::max() ? 1 : count;
}

}  // namespace cpus

unsigned cpu_budget() {
  static const unsigned count = [] {
    const auto self = cpus::read_whole_file("/proc/self/cgroup");
    const auto quota =
        self ? cpus::cgroup_limit(*self, cpus::read_whole_file) : std::optional<unsigned>{};
    return cpus::budget(std::thread::hardware_concurrency(), cpus::affinity_cpus(), quota);
  }();
  return count;
}

}  // namespace seqfuse
