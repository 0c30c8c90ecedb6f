
#include "cgroup.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace unison::suite {

namespace {

// The first number of the file `path` over the second (v2's "<quota> <period>"), or of `path`
// over `period_path` (v1's two files); 0 for "max", a negative quota or no file.
double cpu_quota(const std::string& path, const std::string& period_path) {
  std::ifstream in(path);
  std::string quota_text;
  double period = 0;
  if (!(in >> quota_text)) return 0;
  if (period_path.empty()) {
    if (!(in >> period)) return 0;
  } else {
    std::ifstream p(period_path);
    if (!(p >> period)) return 0;
  }
  char* end = nullptr;
  const double quota = std::strtod(quota_text.c_str(), &end);
  if (*end != '\0' || !(quota > 0) || !(period > 0)) return 0;
  return quota / period;
}

}  // namespace

double cgroup_cpu_limit(const std::string& root, const std::string& self) {
  double limit = 0;
  std::istringstream lines(self);
  for (std::string line; std::getline(lines, line);) {
    // "<id>:<controllers>:<path>"
    const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    bool v1 = false;
    if (controllers.empty() && line.substr(0, a) == "0") {
      v1 = false;
    } else {
      std::istringstream names(controllers);
      bool cpu = false;
      for (std::string n; std::getline(names, n, ',');) cpu = cpu || n == "cpu";
      if (!cpu) continue;
      v1 = true;
    }
    // The cgroup and every one above it, up to the root.
    for (;;) {
      double q = 0;
      if (v1) {
        for (const char* mount : {"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"}) {
          const std::string dir = root + mount + (path == "/" ? "" : path);
          q = cpu_quota(dir + "/cpu.cfs_quota_us", dir + "/cpu.cfs_period_us");
          if (q > 0) break;
        }
      } else {
        q = cpu_quota(root + (path == "/" ? "" : path) + "/cpu.max", "");
      }
      if (q > 0 && (limit == 0 || q < limit)) limit = q;
      if (path.empty() || path == "/") break;
      const auto slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
  }
  return limit;
}

}  // namespace unison::suite
