// The default thread count (-t 0): cgroup quota files and /proc/self/cgroup
// are fed as text, so every layout is checked without a container.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>

#include "core/device_choice.hpp"
#include "core/parallel.hpp"

namespace cpus = seqfuse::cpus;

namespace {

// A fake /sys/fs/cgroup: path -> contents; a missing path reads as nullopt.
auto files(std::map<std::string, std::string> contents) {
  return [contents = std::move(contents)](const std::string& path) -> std::optional<std::string> {
    const auto found = contents.find(path);
    if (found == contents.end()) return std::nullopt;
    return found->second;
  };
}

}  // namespace

TEST_CASE("cgroup v2 cpu.max rounds the quota up to whole CPUs", "[core]") {
  CHECK(cpus::cpu_max_limit("200000 100000\n") == 2U);
  CHECK(cpus::cpu_max_limit("150000 100000\n") == 2U);
  CHECK(cpus::cpu_max_limit("50000 100000") == 1U);
  CHECK(cpus::cpu_max_limit("100000 100000") == 1U);
  CHECK(cpus::cpu_max_limit("1600000 100000") == 16U);
  CHECK_FALSE(cpus::cpu_max_limit("max 100000\n"));
  CHECK_FALSE(cpus::cpu_max_limit("max"));
  for (const char* bad : {"", "\n", "100000", "x 100000", "100000 0", "-5 100000", "1 2 3"})
    CHECK_FALSE(cpus::cpu_max_limit(bad));
}

TEST_CASE("cgroup v1 cfs quota and period", "[core]") {
  CHECK(cpus::cfs_limit("300000\n", "100000\n") == 3U);
  CHECK(cpus::cfs_limit("250000", "100000") == 3U);
  CHECK_FALSE(cpus::cfs_limit("-1\n", "100000\n"));
  CHECK_FALSE(cpus::cfs_limit("100000", "0"));
  CHECK_FALSE(cpus::cfs_limit("", "100000"));
}

TEST_CASE("the cgroup limit is the lowest quota from the process's group up", "[core]") {
  const std::string v2 = "0::/slurm/job_7/step_0\n";
  // A quota on the job's group binds the step below it.
  CHECK(cpus::cgroup_limit(v2, files({{"/sys/fs/cgroup/slurm/job_7/step_0/cpu.max", "max 100000"},
                                      {"/sys/fs/cgroup/slurm/job_7/cpu.max", "400000 100000"},
                                      {"/sys/fs/cgroup/slurm/cpu.max", "max 100000"}})) == 4U);
  CHECK(cpus::cgroup_limit(v2,
                           files({{"/sys/fs/cgroup/slurm/job_7/step_0/cpu.max", "150000 100000"},
                                  {"/sys/fs/cgroup/slurm/job_7/cpu.max", "400000 100000"}})) == 2U);
  CHECK_FALSE(cpus::cgroup_limit(v2, files({{"/sys/fs/cgroup/slurm/cpu.max", "max 100000"}})));
  CHECK_FALSE(cpus::cgroup_limit(v2, files({})));
  // A container's namespace shows its own group at the root: "0::/".
  CHECK(cpus::cgroup_limit("0::/\n", files({{"/sys/fs/cgroup/cpu.max", "200000 100000\n"}})) == 2U);
  // Without a cgroup namespace the path names a folder the mount does not show.
  CHECK(cpus::cgroup_limit("0::/docker/abc\n",
                           files({{"/sys/fs/cgroup/cpu.max", "300000 100000\n"}})) == 3U);
}

TEST_CASE("cgroup v1: only the cpu controller's hierarchy counts", "[core]") {
  const std::string v1 =
      "12:memory:/job\n"
      "4:cpu,cpuacct:/docker/abc\n"
      "1:name=systemd:/docker/abc\n"
      "0::/docker/abc\n";
  CHECK(cpus::cgroup_limit(
            v1, files({{"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n"},
                       {"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n"},
                       {"/sys/fs/cgroup/memory/job/cpu.cfs_quota_us", "100000"},
                       {"/sys/fs/cgroup/memory/job/cpu.cfs_period_us", "100000"}})) == 2U);
  CHECK(cpus::cgroup_limit("3:cpuacct,cpu:/\n",
                           files({{"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n"},
                                  {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"}})) ==
        std::nullopt);
  CHECK(cpus::cgroup_limit("3:cpuacct,cpu:/\n",
                           files({{"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "50000\n"},
                                  {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"}})) == 1U);
  // Only "cpuacct" is not the cpu controller; malformed lines are skipped.
  CHECK_FALSE(cpus::cgroup_limit("3:cpuacct:/\ngarbage\n\n",
                                 files({{"/sys/fs/cgroup/cpuacct/cpu.cfs_quota_us", "50000"},
                                        {"/sys/fs/cgroup/cpuacct/cpu.cfs_period_us", "100000"}})));
}

TEST_CASE("the budget is the least known limit, at least 1", "[core]") {
  CHECK(cpus::budget(16, 4, std::nullopt) == 4U);
  CHECK(cpus::budget(16, 16, 2U) == 2U);
  CHECK(cpus::budget(2, 16, 8U) == 2U);
  CHECK(cpus::budget(0, 3, std::nullopt) == 3U);  // hardware_concurrency() may not know
  CHECK(cpus::budget(0, 0, std::nullopt) == 1U);
  CHECK(cpus::budget(8, 0, 0U) == 8U);
}

TEST_CASE("-t 0 resolves to this process's CPU budget", "[core]") {
  CHECK(seqfuse::cpu_budget() >= 1U);
  CHECK(seqfuse::resolve_threads(0) == seqfuse::cpu_budget());
  CHECK(seqfuse::resolve_threads(5) == 5U);
}
