#pragma once
// The CPU time the process's cgroup grants.
#include <string>

namespace unison::suite {

// The CPU limit of the cgroup this process runs in, as a number of CPUs (1.5: one and a half
// CPUs' time), the smallest over its cgroup and the cgroups above it: cgroup v2's cpu.max
// ("<quota> <period>", or "max") and v1's cpu.cfs_quota_us over cpu.cfs_period_us; 0 where no
// limit is set or none can be read. `root`: where the cgroup file systems are mounted
// (/sys/fs/cgroup); `self`: the text of /proc/self/cgroup, whose lines name the process's cgroup
// ("0::/path" for v2, "<n>:cpu,cpuacct:/path" for v1's cpu controller).
double cgroup_cpu_limit(const std::string& root, const std::string& self);

}  // namespace unison::suite
